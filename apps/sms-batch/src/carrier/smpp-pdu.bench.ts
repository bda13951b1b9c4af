// `npm run bench:smpp`: the `smpp` library's CPU per message on sms-batch's sending thread, where it
// runs for every message: a submit_sm written, its submit_sm_resp read, the delivery receipt
// (deliver_sm) read and its deliver_sm_resp written. Prints microseconds per message (the best is the
// summary's min) of BENCH_ROUNDS (5) rounds of BENCH_MESSAGES (50,000) after a warm-up round,
// through tools/bench/micro.bench.ts. Run it with the patch
// reverted (`npx patch-package --reverse`, then `npm install` to re-apply) to see what
// patches/smpp+0.5.1.patch saves.
import { PDU } from 'smpp/lib/pdu';

const messages = Number(process.env['BENCH_MESSAGES'] ?? 50_000);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 5);

const receipt = new PDU('deliver_sm', {
  sequence_number: 4,
  source_addr: '447400123456',
  destination_addr: 'ACME',
  esm_class: 4,
  short_message: 'id:0193a5b2-1c2d-7e3f-8a9b-0c1d2e3f4a5b sub:001 dlvrd:001 submit date:2611250930 done date:2611250931 stat:DELIVRD err:000 text:',
  receipted_message_id: '0193a5b2-1c2d-7e3f-8a9b-0c1d2e3f4a5b',
  message_state: 2,
}).toBuffer();
const submitResp = new PDU('submit_sm_resp', { sequence_number: 5, message_id: '0193a5b2-1c2d-7e3f-8a9b-0c1d2e3f4a5b' }).toBuffer();
const text = Buffer.from('Hello Alice, your order 12345 ships today.');

function round(n: number): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    new PDU('submit_sm', { sequence_number: i + 1, source_addr: 'ACME', destination_addr: '447400123456', registered_delivery: 1, data_coding: 0, short_message: text }).toBuffer();
    new PDU(submitResp);
    new PDU(receipt).response().toBuffer();
  }
  return Number(process.hrtime.bigint() - start) / n / 1000;
}

/** Timed by tools/bench/micro.bench.ts: the summary's min is the best round, as before. */
export const benchmark = {
  id: 'smpp',
  command: 'npm run bench:smpp',
  parameters: { messages, rounds },
  metric: 'microsecondsPerMessage',
  rounds,
  warmup: () => round(messages / 2),
  round: () => round(messages),
};
