/** Counters behind `GET /stats`; `DELETE /messages` zeroes them with the messages. */
export interface SimulatorCounters {
  /** submit_sm PDUs received, whatever became of them. */
  submits: number;
  accepted: number;
  /** Refused with another status than the two below (not bound, rejected destination). */
  rejected: number;
  throttled: number;
  windowFull: number;
  /** Connections dropped on purpose (SMSC_DROP_PROBABILITY). */
  dropped: number;
  receiptsSent: number;
  receiptsResent: number;
  receiptsAcked: number;
  receiptsAbandoned: number;
  binds: number;
  bindFailures: number;
  enquireLinks: number;
  genericNacks: number;
}

export function zeroCounters(): SimulatorCounters {
  return {
    submits: 0, accepted: 0, rejected: 0, throttled: 0, windowFull: 0, dropped: 0,
    receiptsSent: 0, receiptsResent: 0, receiptsAcked: 0, receiptsAbandoned: 0,
    binds: 0, bindFailures: 0, enquireLinks: 0, genericNacks: 0,
  };
}
