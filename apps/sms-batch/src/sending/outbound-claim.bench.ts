// `npm run bench:claims` (second half): what one claim of sms-batch's outbound queue costs with 0,
// 10,000 and 100,000 messages due, with fresh planner statistics (ANALYZE after the fill) and stale
// ones (autovacuum off, ANALYZE while the table was empty), to show that a claim is O(batch), not
// O(queued).
// The queue: N messages due within the last 10 minutes; 1% past their expiry, half the rest with
// an expiry tomorrow, the others without one.
// Operations, each timed BENCH_RUNS (20) times on a table of its own:
//   claim           claim(500)
//   claim-expired   claim(500, onlyExpired), as while no carrier is bound
// After each timed claim its rows are handed back (release(..., 0), untimed), so every claim takes a
// full batch (or every expired message) whatever N is; the claimed rows' old index entries stay
// behind as they do in service.
// The harness (schemas, statistics, timing, EXPLAIN) is runClaimBench's; tools/bench/claims.bench.ts runs it.
import 'reflect-metadata';
import type { DataSource } from 'typeorm';
import type { ClaimBenchQueue } from '@seed/platform-work-queue/bench';
import { ServiceSchema } from '@seed/platform-nest';
import { migrateSmsBatchSchema } from '../sms-batch.test-helpers';
import { OutboundQueueRepository } from './outbound-queue.repository';

const BATCH = 500;
const LEASE_MS = 60_000;

async function fill(ds: DataSource, s: string, n: number): Promise<void> {
  if (n === 0) return;
  await ds.query(
    `INSERT INTO ${s}.outbound_queue (umid, destination, source, text, encoding, expiry, next_attempt_at, attempts)
     SELECT gen_random_uuid(), '44740' || lpad(i::text, 7, '0'), 'Seed', 'Your code is ' || lpad((i % 1000000)::text, 6, '0'), 'GSM7',
            CASE WHEN i % 100 = 0 THEN now() - random() * interval '1 hour'
                 WHEN i % 2 = 0 THEN now() + interval '1 day' + random() * interval '1 hour' END,
            now() - random() * interval '10 minutes', 0
       FROM generate_series(1, $1::int) AS i`,
    [n],
  );
}

/** Run by `npm run bench:claims` (tools/bench/claims.bench.ts). */
export const claimBench: ClaimBenchQueue<'claim' | 'claim-expired'> = {
  name: 'sms-outbound',
  operations: ['claim', 'claim-expired'] as const,
  table: 'outbound_queue',
  migrate: migrateSmsBatchSchema,
  fill,
  open: (ds, schema) => {
    const queue = new OutboundQueueRepository(ds, new ServiceSchema(schema));
    return async (op) => {
      const claimed = await queue.claim(BATCH, LEASE_MS, op === 'claim-expired');
      return { rows: claimed.length, handBack: () => queue.release(claimed, 0, false) };
    };
  },
};
