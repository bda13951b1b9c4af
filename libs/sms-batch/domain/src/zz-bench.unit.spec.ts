import type { SmsBatchItem, SubmitBatchData } from '@seed/sms-batch-contracts';
import { decideSubmitBatch, initialBatchState } from './batch-submission.decider';

const run = (label: string, messages: SmsBatchItem[], template?: SubmitBatchData['template']) => {
  const data: SubmitBatchData = { accountId: 'a', subAccountId: 'a_hq', includeMessagesInResponse: false, messages, ...(template ? { template } : {}) };
  const t = performance.now();
  const d = decideSubmitBatch({ data, batchId: 'b', umids: messages.map((_, i) => `u${i}`), now: '2030-01-01T00:00:00.000Z' }, initialBatchState());
  const ms = performance.now() - t;
  console.log(`${label}: ${ms.toFixed(1)} ms accepted=${d.batch[0]?.data.acceptedCount}`);
};
const gb = (i: number) => `+447${String(400000000 + i * 7919).slice(0, 9)}`;
const mixed = (i: number) => [`+1202555${String(i % 10000).padStart(4, '0')}`, `+4915123${String(i).padStart(6, '0')}`, `+9198765${String(i).padStart(5, '0')}`, `+336${String(12345678 + i).padStart(8, '0')}`, gb(i)][i % 5] as string;
const text = (i: number) => `Dear customer ${i}, your parcel ${i * 31} arrives tomorrow between 9 and 12. Reply STOP to opt out. Ref ${i}`;
it('bench', () => {
  run('cold GB intl, template text', Array.from({ length: 10000 }, (_, i) => ({ destination: gb(i) })), { text: 'Your code is ready', source: 'ACME' });
  run('warm GB intl, template text', Array.from({ length: 10000 }, (_, i) => ({ destination: gb(i + 1) })), { text: 'Your code is ready', source: 'ACME' });
  run('mixed intl, unique texts', Array.from({ length: 10000 }, (_, i) => ({ destination: mixed(i), text: text(i), expiry: '2030-02-01T00:00:00Z' })), { source: 'ACME' });
  run('mixed intl, unique UCS2 texts', Array.from({ length: 10000 }, (_, i) => ({ destination: mixed(i + 3), text: text(i) + ' 😀' })), { source: 'ACME' });
  run('GB national with country', Array.from({ length: 10000 }, (_, i) => ({ destination: '0' + gb(i).slice(3), country: 'GB' })), { text: 'Hi' });
  run('GB intl again', Array.from({ length: 10000 }, (_, i) => ({ destination: gb(i + 2) })), { text: 'Your code is ready', source: 'ACME' });
});
