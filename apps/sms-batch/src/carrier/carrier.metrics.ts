import { Histogram } from 'prom-client';

/**
 * How long a carrier waits for our answer to a deliver_sm. A receipt is answered only once it is
 * committed, and a carrier keeps a window of unanswered receipts per session: this time, divided
 * into that window, is how many receipts a second the session can take.
 */
export const receiptAckSeconds = new Histogram({
  name: 'sms_batch_receipt_ack_seconds',
  help: 'Time from a deliver_sm arriving to its deliver_sm_resp being sent',
  labelNames: ['outcome'] as const,
  buckets: [0.005, 0.01, 0.02, 0.035, 0.05, 0.075, 0.1, 0.2, 0.5, 1, 5],
});
