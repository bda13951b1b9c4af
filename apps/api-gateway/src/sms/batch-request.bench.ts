// `npm run bench:accept` (with the sms-batch decision's bench): the CPU of the gateway's checks of
// one 10,000-message batch (`toSubmitBatchData`, after the JSON is parsed), on the path of every
// batch's acceptance. Each message carries a callback URL, as in bench:e2e. Prints milliseconds per
// batch, the best and the median of BENCH_ROUNDS (20) after as many warm-up rounds, through
// tools/bench/micro.bench.ts.
import 'reflect-metadata';
import { toSubmitBatchData } from './batch-request.validation';

const size = Number(process.env['BENCH_SIZE'] ?? 10_000);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 20);

const body = JSON.stringify({
  template: { source: 'BENCH' },
  messages: Array.from({ length: size }, (_, i) => ({
    destination: `+447700${String(900_000 + i).padStart(6, '0')}`,
    clientMessageId: `m${i}`,
    text: `Hello customer ${i}, your order ${i} has shipped. Track it in the app.`,
    dlrCallbackUrl: 'http://127.0.0.1:4100/platform/dlr',
  })),
});

function round(): number {
  const parsed: unknown = JSON.parse(body);
  const start = process.hrtime.bigint();
  toSubmitBatchData(parsed, 'acme', 'acme_hq', new Date());
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Timed by tools/bench/micro.bench.ts: the summary's min and median are the best and median round. */
export const benchmark = {
  id: 'accept-checks',
  command: 'npm run bench:accept',
  parameters: { messages: size, rounds },
  metric: 'ms',
  rounds,
  round,
};
