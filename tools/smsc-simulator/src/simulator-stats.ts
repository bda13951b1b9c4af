/** Counters behind `GET /stats`; `DELETE /messages` zeroes them with the messages. */
export interface SimulatorCounters {
  /** submit_sm PDUs received, whatever became of them. */
  submits: number;
  /** Answered with status 0 (and stored). */
  accepted: number;
  /** Refused with another status than the ones counted below (not bound, rejected destination). */
  rejected: number;
  /** ESME_RTHROTTLED: above throttlePerSecond, or throttleAll. */
  throttled: number;
  windowFull: number;
  /** temporaryErrorProbability's answers. */
  temporaryErrors: number;
  /** Connections dropped on purpose (SMSC_DROP_PROBABILITY). */
  dropped: number;
  /** submit_sm held by submitDelayMs when their session closed: never answered, never stored. */
  unanswered: number;
  /** submit_sm stored but never answered (answerSubmits false, a hung carrier that still delivers). */
  storedUnanswered: number;
  receiptsSent: number;
  receiptsResent: number;
  receiptsAcked: number;
  receiptsAbandoned: number;
  /** deliver_sm of `POST /inbound`, every send counted ... */
  inboundSent: number;
  /** ... and those among them sent again because the ESME did not acknowledge (closed, timed out, error). */
  inboundRedelivered: number;
  binds: number;
  /** Wrong system_id or password. */
  bindFailures: number;
  /** Refused while refuseBinds (or a drop's refuseBindsMs) held. */
  bindsRefused: number;
  /** Connections closed by `POST /sessions/drop`. */
  sessionsDropped: number;
  enquireLinks: number;
  genericNacks: number;
}

export function zeroCounters(): SimulatorCounters {
  return {
    submits: 0, accepted: 0, rejected: 0, throttled: 0, windowFull: 0, temporaryErrors: 0, dropped: 0, unanswered: 0, storedUnanswered: 0,
    receiptsSent: 0, receiptsResent: 0, receiptsAcked: 0, receiptsAbandoned: 0, inboundSent: 0, inboundRedelivered: 0,
    binds: 0, bindFailures: 0, bindsRefused: 0, sessionsDropped: 0, enquireLinks: 0, genericNacks: 0,
  };
}
