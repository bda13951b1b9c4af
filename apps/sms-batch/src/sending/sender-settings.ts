/** How a MessageSender claims, retries and prepares what it sends. */
export interface SenderSettings {
  /** Messages held at most (claimed, being submitted, or sent with the result not committed); claims top this up. */
  claimSize: number;
  leaseMs: number;
  idleMs: number;
  /** How long a stop waits for submits on the wire and their records before it gives up on them. */
  stopGraceMs: number;
  defaultSource: string;
  /** First retry delay after a temporary refusal; doubles per attempt up to retryMaxMs. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** The text to send for a queue row's text: sealed texts opened, plain ones unchanged. */
  textOf: (stored: string) => string;
  /**
   * Whether the recipient opted out of the sub-account's messages: then it is never handed to a
   * carrier. 'unknown' while the opt-outs cannot be read: the message waits (fails closed).
   */
  optedOut: (subAccountId: string, msisdn: string) => boolean | 'unknown';
}
