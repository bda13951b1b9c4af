// `npm run bench:claims` (first half): what one claim of the webhook deliveries' queue costs with
// 0, 10,000 and 100,000 deliveries waiting, with fresh planner statistics (ANALYZE after the fill)
// and stale ones (autovacuum off, ANALYZE while the table was empty), to show that a claim is
// O(batch), not O(pending).
// The backlog is the one a customer outage leaves: N/2 messages, each with its `sent` delivery due
// (3 attempts, due in the past hour) and its `delivered` delivery waiting behind it at 'infinity';
// 99% of the messages go to one origin (http://down.example:443), 1% to five healthy ones.
// Operations, each timed BENCH_RUNS (20) times on a table of its own:
//   claim           claim(500) with nothing excluded (the per-endpoint cap left at 500)
//   claim-excluded  claim(500) with the big origin excluded (its breaker open)
//   sweep           releaseStranded(), the safety net run every 10 s
// After each timed claim its rows are handed back (release(), untimed), so every claim takes a full
// batch whatever N is; the claimed rows' old index entries stay behind as they do in service.
// The harness (schemas, statistics, timing, EXPLAIN) is runClaimBench's; tools/bench/claims.bench.ts runs it.
import 'reflect-metadata';
import type { DataSource } from 'typeorm';
import { EventStore, eventStoreSchema, runMigrations } from '@seed/platform-event-store';
import type { ClaimBenchQueue } from '@seed/platform-work-queue/bench';
import { ServiceSchema } from '@seed/platform-nest';
import { webhookMigrations } from '../webhook.migrations';
import { DeliveryStore } from './delivery-store';

const BATCH = 500;
const LEASE_MS = 60_000;
const DOWN = 'http://down.example:443';
const HEALTHY = [1, 2, 3, 4, 5].map((i) => `http://ok${i}.example:443`);

async function fill(ds: DataSource, s: string, n: number): Promise<void> {
  if (n === 0) return;
  // Message i's origin: every 100th message to one of the healthy origins, the rest to the down one.
  await ds.query(
    `INSERT INTO ${s}.deliveries (delivery_id, account_id, umid, sequence, url, origin, body, state, attempts, version,
                                  window_start, next_attempt_at, created_at)
     SELECT gen_random_uuid(), 'acme', m.umid, k.sequence, m.origin || '/dlr', m.origin,
            json_build_object('type', 'message.status', 'payload', json_build_object('umid', m.umid, 'batchId', m.umid,
              'status', json_build_object('state', k.state, 'timestamp', m.created_at)))::text,
            'pending', CASE WHEN k.sequence = 2 THEN 3 ELSE 0 END, CASE WHEN k.sequence = 2 THEN 4 ELSE 1 END, m.created_at,
            CASE WHEN k.sequence = 2 THEN now() - random() * interval '1 hour' ELSE 'infinity'::timestamptz END, m.created_at
       FROM (SELECT gen_random_uuid()::text AS umid, now() - interval '2 hours' AS created_at,
                    CASE WHEN i % 100 = 0 THEN ($2::text[])[(i / 100) % 5 + 1] ELSE $3 END AS origin
               FROM generate_series(1, $1::int / 2) AS i) m
      CROSS JOIN (VALUES (2, 'sent'), (3, 'delivered')) AS k(sequence, state)`,
    [n, HEALTHY, DOWN],
  );
  // The endpoints the claim walks, as the intake records them.
  await ds.query(`INSERT INTO ${s}.delivery_endpoints (origin) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING`, [[...HEALTHY, DOWN]]);
}

/** Run by `npm run bench:claims` (tools/bench/claims.bench.ts). */
export const claimBench: ClaimBenchQueue<'claim' | 'claim-excluded' | 'sweep'> = {
  name: 'webhook-deliveries',
  operations: ['claim', 'claim-excluded', 'sweep'] as const,
  table: 'deliveries',
  migrate: async (ds, schema) => void (await runMigrations(ds, schema, [...eventStoreSchema, ...webhookMigrations])),
  fill,
  open: (ds, schema) => {
    const store = new DeliveryStore(ds, new EventStore(schema), new ServiceSchema(schema));
    let cursor = '';
    return async (op) => {
      if (op === 'sweep') {
        // One slice of the sweep, going on from where the previous one stopped.
        const { released, next } = await store.releaseStranded(cursor);
        cursor = next;
        return { rows: released };
      }
      const claimed = await store.claim(BATCH, LEASE_MS, op === 'claim-excluded' ? [DOWN] : []);
      return { rows: claimed.length, handBack: () => store.release(claimed.map((c) => ({ deliveryId: c.deliveryId, leaseToken: c.leaseToken, dueAt: null }))) };
    };
  },
};
