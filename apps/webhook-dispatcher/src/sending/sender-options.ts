import type { BreakerPolicy, RetryPolicy } from '@seed/webhook-dispatcher-domain';
import type { RecordSent, WriteDown } from './direct-delivery';

export interface SenderOptions {
  /** Deliveries held at once: in flight, or waiting for their endpoint. */
  maxHeld: number;
  /** Requests in flight to one endpoint at once, over all replicas. */
  endpointConcurrency: number;
  leaseMs: number;
  timeoutMs: number;
  idleMs: number;
  retry: RetryPolicy;
  breaker: BreakerPolicy;
  /** How often the sweeps run (waiting deliveries left behind; held-back ones past their window). */
  sweepMs?: number;
  /** This replica's name in the endpoints' slot grants; by default host, pid and a random part. */
  holder?: string;
  /** Writes direct deliveries down (DirectWriteDown); without it the sender takes none (directOffer). */
  writeDown?: WriteDown;
  /** Records direct successes as handled (DirectWriteDown.recordSent); without it they leave no record. */
  recordSent?: RecordSent;
  /** How long direct deliveries may go unsettled before what is left of them is written down. */
  directWaitMs?: number;
}

/** The clear signing secrets of an account valid now (current first), or [] when it has none. */
export type SecretsOf = (accountIds: readonly string[]) => Promise<Map<string, string[]>>;
