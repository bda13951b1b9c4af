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
// One EXPLAIN (ANALYZE, BUFFERS) of the claim, rolled back, before and after the timed runs.
// Prints one JSON line per (operation, N, stats) and a table. BENCH_PLANS=1 also prints the plans
// of the largest N (stderr). Needs DATABASE_URL; works in a schema of its own and drops it.
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { PreparedStatementClient, PLAN_EACH_CALL } from '@seed/platform-event-store';
import { ServiceSchema } from '@seed/platform-nest';
import { migrateSmsBatchSchema } from '../sms-batch.test-helpers';
import { OutboundQueueRepository } from './outbound-queue.repository';

const env = process.env;
const runs = Number(env['BENCH_RUNS'] ?? 20);
const sizes = (env['BENCH_SIZES'] ?? '0,10000,100000').split(',').map(Number);
const showPlans = env['BENCH_PLANS'] === '1';
const BATCH = 500;
const LEASE_MS = 60_000;
const runId = `bench_claims_${randomBytes(4).toString('hex')}`;

type Operation = 'claim' | 'claim-expired';
type Stats = 'fresh' | 'stale';

interface Explained {
  rows: number;
  buffers: number;
  execMs: number;
  planMs: number;
  text?: string;
}

interface Result {
  queue: 'sms-outbound';
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

/** The last query a repository sent (text and parameters), so that it can be explained as sent. */
interface Recorded {
  sql: string;
  params: unknown[];
}

function recording(ds: DataSource, last: { query?: Recorded }): DataSource {
  return {
    query: (sql: string, params: unknown[] = []) => {
      last.query = { sql, params };
      return ds.query(sql, params);
    },
    transaction: ds.transaction.bind(ds),
  } as unknown as DataSource;
}

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

/** EXPLAIN (ANALYZE, BUFFERS) of the query as the repository sent it, in a transaction rolled back. */
async function explain(ds: DataSource, query: Recorded, withText: boolean): Promise<Explained> {
  const runner = ds.createQueryRunner();
  await runner.connect();
  try {
    await runner.startTransaction();
    const asJson = query.sql.replace(PLAN_EACH_CALL, `${PLAN_EACH_CALL} EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)`);
    const rows = (await runner.query(asJson, query.params)) as { 'QUERY PLAN': { Plan: Record<string, number>; 'Execution Time': number; 'Planning Time': number }[] }[];
    const top = rows[0]?.['QUERY PLAN'][0];
    if (!top) throw new Error('EXPLAIN answered no plan');
    let text: string | undefined;
    if (withText) {
      await runner.rollbackTransaction();
      await runner.startTransaction();
      const asText = query.sql.replace(PLAN_EACH_CALL, `${PLAN_EACH_CALL} EXPLAIN (ANALYZE, BUFFERS)`);
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
    await migrateSmsBatchSchema(ds, schema);
    if (stats === 'stale') {
      await ds.query(`ALTER TABLE ${s}.outbound_queue SET (autovacuum_enabled = false)`);
      await ds.query(`ANALYZE ${s}.outbound_queue`);
      await fill(ds, s, n);
    } else {
      await fill(ds, s, n);
      await ds.query(`ANALYZE ${s}.outbound_queue`);
    }
    const last: { query?: Recorded } = {};
    const queue = new OutboundQueueRepository(recording(ds, last), new ServiceSchema(schema));
    // One call: timed; its rows are then handed back, untimed, so the queue stays as it was.
    const call = async (): Promise<{ ms: number; rows: number }> => {
      const started = performance.now();
      const claimed = await queue.claim(BATCH, LEASE_MS, op === 'claim-expired');
      const ms = performance.now() - started;
      const recorded = last.query;
      await queue.release(
        claimed.map((m) => m.umid),
        0,
        false,
      );
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
    if (explainLast.text) process.stderr.write(`\n--- sms-outbound ${op} N=${n} ${stats}\n${explainLast.text}\n`);
    delete explainLast.text;
    return {
      queue: 'sms-outbound',
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
    for (const op of ['claim', 'claim-expired'] as const) {
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
