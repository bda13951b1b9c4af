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
// One EXPLAIN (ANALYZE, BUFFERS) of the operation, rolled back, before and after the timed runs.
// Prints one JSON line per (operation, N, stats) and a table. BENCH_PLANS=1 also prints the plans
// of the largest N (stderr). Needs DATABASE_URL; works in a schema of its own and drops it.
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { EventStore, eventStoreSchema, PreparedStatementClient, PLAN_EACH_CALL, runMigrations } from '@seed/platform-event-store';
import { ServiceSchema } from '@seed/platform-nest';
import { webhookMigrations } from '../webhook.migrations';
import { DeliveryStore } from './delivery-store';

const env = process.env;
const runs = Number(env['BENCH_RUNS'] ?? 20);
const sizes = (env['BENCH_SIZES'] ?? '0,10000,100000').split(',').map(Number);
const showPlans = env['BENCH_PLANS'] === '1';
const BATCH = 500;
const LEASE_MS = 60_000;
const DOWN = 'http://down.example:443';
const HEALTHY = [1, 2, 3, 4, 5].map((i) => `http://ok${i}.example:443`);
const runId = `bench_claims_${randomBytes(4).toString('hex')}`;

type Operation = 'claim' | 'claim-excluded' | 'sweep';
type Stats = 'fresh' | 'stale';

interface Explained {
  rows: number;
  buffers: number;
  execMs: number;
  planMs: number;
  text?: string;
}

interface Result {
  queue: 'webhook-deliveries';
  op: Operation;
  n: number;
  stats: Stats;
  runs: number;
  rowsPerCall: number;
  medianMs: number;
  maxMs: number;
  explainFirst: Explained;
  explainLast: Explained;
}

/** The last query a store sent (text and parameters), so that it can be explained as sent. */
interface Recorded {
  sql: string;
  params: unknown[];
  /** `SET LOCAL` statements the store ran before it in the same transaction. */
  settings: string[];
}

type Query = (sql: string, params?: unknown[]) => Promise<unknown>;

/** The data source as the store sees it, noting the last query it sent (in a transaction or not). */
function recording(ds: DataSource, last: { query?: Recorded }): DataSource {
  const noting = (query: Query): Query => {
    const settings: string[] = [];
    return (sql, params = []) => {
      if (sql.startsWith('SET LOCAL')) settings.push(sql);
      else last.query = { sql, params, settings: [...settings] };
      return query(sql, params);
    };
  };
  return {
    query: noting((sql, params) => ds.query(sql, params)),
    transaction: <T>(work: (tx: { query: Query }) => Promise<T>) => ds.transaction((tx) => work({ query: noting((sql, params) => tx.query(sql, params)) })),
  } as unknown as DataSource;
}

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

/** EXPLAIN (ANALYZE, BUFFERS) of the query as the store sent it, in a transaction rolled back. */
async function explain(ds: DataSource, query: Recorded, withText: boolean): Promise<Explained> {
  const runner = ds.createQueryRunner();
  await runner.connect();
  try {
    await runner.startTransaction();
    for (const setting of query.settings) await runner.query(setting);
    const explained = (options: string) => (query.sql.startsWith(PLAN_EACH_CALL) ? query.sql.replace(PLAN_EACH_CALL, `${PLAN_EACH_CALL} EXPLAIN ${options}`) : `EXPLAIN ${options} ${query.sql}`);
    const asJson = explained('(ANALYZE, BUFFERS, FORMAT JSON)');
    const rows = (await runner.query(asJson, query.params)) as { 'QUERY PLAN': { Plan: Record<string, number>; 'Execution Time': number; 'Planning Time': number }[] }[];
    const top = rows[0]?.['QUERY PLAN'][0];
    if (!top) throw new Error('EXPLAIN answered no plan');
    let text: string | undefined;
    if (withText) {
      await runner.rollbackTransaction();
      await runner.startTransaction();
      for (const setting of query.settings) await runner.query(setting);
      const asText = explained('(ANALYZE, BUFFERS)');
      text = ((await runner.query(asText, query.params)) as { 'QUERY PLAN': string }[]).map((r) => r['QUERY PLAN']).join('\n');
    }
    await runner.rollbackTransaction();
    return {
      rows: top.Plan['Actual Rows'] ?? NaN,
      buffers: (top.Plan['Shared Hit Blocks'] ?? 0) + (top.Plan['Shared Read Blocks'] ?? 0),
      execMs: Number(top['Execution Time'].toFixed(2)),
      planMs: Number(top['Planning Time'].toFixed(2)),
      ...(text ? { text } : {}),
    };
  } finally {
    await runner.release();
  }
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? NaN;
};
const round = (ms: number) => Number(ms.toFixed(2));

async function measure(ds: DataSource, op: Operation, n: number, stats: Stats): Promise<Result> {
  const schema = `${runId}_${op.replace('-', '_')}_${n}_${stats}`;
  const s = `"${schema}"`;
  try {
    await runMigrations(ds, schema, [...eventStoreSchema, ...webhookMigrations]);
    if (stats === 'stale') {
      await ds.query(`ALTER TABLE ${s}.deliveries SET (autovacuum_enabled = false)`);
      await ds.query(`ANALYZE ${s}.deliveries`);
      await fill(ds, s, n);
    } else {
      await fill(ds, s, n);
      await ds.query(`ANALYZE ${s}.deliveries`);
    }
    const last: { query?: Recorded } = {};
    const store = new DeliveryStore(recording(ds, last), new EventStore(schema), new ServiceSchema(schema));
    // One call: timed; a claim's rows are then handed back, untimed, so the backlog stays N.
    let cursor = '';
    const call = async (): Promise<{ ms: number; rows: number }> => {
      const started = performance.now();
      if (op === 'sweep') {
        // One slice of the sweep, going on from where the previous one stopped.
        const { released, next } = await store.releaseStranded(cursor);
        cursor = next;
        return { ms: performance.now() - started, rows: released };
      }
      const claimed = await store.claim(BATCH, LEASE_MS, op === 'claim-excluded' ? [DOWN] : []);
      const ms = performance.now() - started;
      const recorded = last.query;
      await store.release(claimed.map((c) => ({ deliveryId: c.deliveryId, dueAt: null })));
      last.query = recorded;
      return { ms, rows: claimed.length };
    };

    // A first call, untimed, records the query to explain.
    await call();
    const explainFirst = await explain(ds, last.query as Recorded, false);
    const times: number[] = [];
    const rows: number[] = [];
    for (let i = 0; i < runs; i++) {
      const r = await call();
      times.push(r.ms);
      rows.push(r.rows);
    }
    const explainLast = await explain(ds, last.query as Recorded, showPlans && n === Math.max(...sizes));
    if (explainLast.text) process.stderr.write(`\n--- webhook-deliveries ${op} N=${n} ${stats}\n${explainLast.text}\n`);
    delete explainLast.text;
    return {
      queue: 'webhook-deliveries',
      op,
      n,
      stats,
      runs,
      rowsPerCall: median(rows),
      medianMs: round(median(times)),
      maxMs: round(Math.max(...times)),
      explainFirst,
      explainLast,
    };
  } finally {
    await ds.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
  }
}

function table(results: readonly Result[]): string {
  const lines = [
    'queue               operation        N        stats  rows/call  median ms  max ms  buffers (first/last)',
    ...results.map((r) =>
      [
        r.queue.padEnd(19),
        r.op.padEnd(16),
        String(r.n).padEnd(8),
        r.stats.padEnd(6),
        String(r.rowsPerCall).padStart(9),
        r.medianMs.toFixed(2).padStart(10),
        r.maxMs.toFixed(2).padStart(7),
        `  ${r.explainFirst.buffers}/${r.explainLast.buffers}`,
      ].join(' '),
    ),
  ];
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const url = env['DATABASE_URL'];
  if (!url) throw new Error('DATABASE_URL is not set (see .local/infra.env)');
  const ds = await new DataSource({ type: 'postgres', url, extra: { max: 4, Client: PreparedStatementClient } }).initialize();
  const results: Result[] = [];
  try {
    for (const op of ['claim', 'claim-excluded', 'sweep'] as const) {
      for (const n of sizes) {
        for (const stats of ['fresh', 'stale'] as const) {
          const result = await measure(ds, op, n, stats);
          results.push(result);
          process.stdout.write(`${JSON.stringify(result)}\n`);
        }
      }
    }
  } finally {
    await ds.destroy();
  }
  process.stdout.write(`\n${table(results)}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
