/**
 * A command sent by the api-gateway (or another service) to the service that owns an aggregate.
 * It travels as the JSON value of a Kafka record keyed by the aggregate id.
 */
export interface CommandMessage<TData = unknown, TType extends string = string> {
  commandId: string;
  type: TType;
  issuedAt: string;
  data: TData;
}

/** A failure the owning service decided, mapped to HTTP by the gateway in one place. */
export interface CommandFailure {
  /** HTTP status the gateway answers with. */
  status: number;
  /** Error code of the contract's list. */
  code: number;
  message: string;
  retryAfterSeconds?: number;
}

export type CommandReply<TResult = unknown> =
  | { ok: true; result: TResult }
  | { ok: false; failure: CommandFailure };
