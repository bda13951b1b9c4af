// `npm run bench:accept` (after the gateway's checks' bench): the CPU of deciding one
// 10,000-message batch (`decideSubmitBatch`), which sms-batch does on its sending thread between
// the request and the batch's commit: every millisecond here is a millisecond of the batch's
// acceptance. The messages are bench:batch's (a template source, 2% invalid numbers). Prints
// milliseconds per batch, the best and the median of BENCH_ROUNDS (20) after as many warm-up
// rounds, with BENCH_SIZE (10,000) messages each, through tools/bench/micro.bench.ts.
import { randomUUID } from 'node:crypto';
import { decideSubmitBatch, initialBatchState } from './batch-submission.decider';

const size = Number(process.env['BENCH_SIZE'] ?? 10_000);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 20);

const messages = Array.from({ length: size }, (_, i) => {
  const subscriber = String(1_000_000 + i).padStart(7, '0');
  return {
    destination: i % 50 === 0 ? `+44${subscriber.slice(0, 3)}` : `+447700${subscriber.slice(1)}`,
    clientMessageId: `m${i}`,
    text: `Hello customer ${i}, your order ${i} has shipped. Track it in the app.`,
  };
});
const umids = messages.map(() => randomUUID());

function round(): number {
  const data = { accountId: 'acme', subAccountId: 'acme_hq', includeMessagesInResponse: false, template: { source: 'BENCH' }, messages };
  const start = process.hrtime.bigint();
  decideSubmitBatch({ data, batchId: randomUUID(), umids, now: new Date().toISOString() }, initialBatchState());
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Timed by tools/bench/micro.bench.ts: the summary's min and median are the best and median round. */
export const benchmark = {
  id: 'accept-decision',
  command: 'npm run bench:accept',
  parameters: { messages: size, rounds },
  metric: 'ms',
  rounds,
  round,
};
