// The harness of `npm run bench:claims`: what one call of a work queue's claim (or sweep) costs with
// 0, 10,000 and 100,000 rows waiting, with fresh planner statistics (ANALYZE after the fill) and
// stale ones (autovacuum off, ANALYZE while the table was empty). Each (operation, size, statistics)
// gets a schema of its own, dropped afterwards. Each call is timed; what it took is then handed back
// untimed, so every call takes a full batch whatever the size. One EXPLAIN (ANALYZE, BUFFERS) of the
// statement as the store sent it (with the SET LOCAL settings it ran before it), rolled back, before
// and after the timed calls. Returns the cells; tools/bench/claims.bench.ts prints and records them.
// Settings: DATABASE_URL, BENCH_RUNS (20), BENCH_SIZES (0,10000,100000), BENCH_PLANS=1 (the plans of
// the largest size, on stderr).
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { PLAN_EACH_CALL, PreparedStatementClient } from '@seed/platform-event-store';

type Stats = 'fresh' | 'stale';

export interface ClaimBenchQueue<Op extends string> {
  /** The label printed for it, e.g. `webhook-deliveries`. */
  name: string;
  operations: readonly Op[];
  /** The queue's table, whose statistics are made fresh or stale. */
  table: string;
  migrate(ds: DataSource, schema: string): Promise<void>;
  /** Puts `n` waiting rows into the schema (`s` quoted). */
  fill(ds: DataSource, s: string, n: number): Promise<void>;
  /**
   * The operation against a store built on `ds` (which notes what it sends): the rows it took, and
   * how to hand them back (not timed, not explained).
   */
  open(ds: DataSource, schema: string): (op: Op) => Promise<{ rows: number; handBack?: () => Promise<void> }>;
}

interface Explained {
  rows: number;
  buffers: number;
  execMs: number;
  planMs: number;
  text?: string;
}

/** One (operation, size, statistics) cell: what its timed calls took, and the plan before and after them. */
export interface ClaimCell {
  queue: string;
  op: string;
  n: number;
  stats: Stats;
  runs: number;
  rowsPerCall: number;
  medianMs: number;
  maxMs: number;
  explainFirst: Explained;
  explainLast: Explained;
}

/** The last statement a store sent, with the `SET LOCAL` settings it ran before it in the same transaction. */
interface Recorded {
  sql: string;
  params: unknown[];
  settings: string[];
}

type Query = (sql: string, params?: unknown[]) => Promise<unknown>;

/** The data source as the store sees it, noting the last statement it sent (in a transaction or not). */
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

async function explain(ds: DataSource, query: Recorded, withText: boolean): Promise<Explained> {
  const explained = (options: string) => (query.sql.startsWith(PLAN_EACH_CALL) ? query.sql.replace(PLAN_EACH_CALL, `${PLAN_EACH_CALL} EXPLAIN ${options}`) : `EXPLAIN ${options} ${query.sql}`);
  const runner = ds.createQueryRunner();
  await runner.connect();
  const inTransaction = async <T>(work: () => Promise<T>): Promise<T> => {
    await runner.startTransaction();
    try {
      for (const setting of query.settings) await runner.query(setting);
      return await work();
    } finally {
      await runner.rollbackTransaction();
    }
  };
  try {
    const rows = (await inTransaction(() => runner.query(explained('(ANALYZE, BUFFERS, FORMAT JSON)'), query.params))) as {
      'QUERY PLAN': { Plan: Record<string, number>; 'Execution Time': number; 'Planning Time': number }[];
    }[];
    const top = rows[0]?.['QUERY PLAN'][0];
    if (!top) throw new Error('EXPLAIN answered no plan');
    const text = withText
      ? ((await inTransaction(() => runner.query(explained('(ANALYZE, BUFFERS)'), query.params))) as { 'QUERY PLAN': string }[]).map((r) => r['QUERY PLAN']).join('\n')
      : undefined;
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

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] ?? NaN;
const round = (ms: number) => Number(ms.toFixed(2));

async function measure<Op extends string>(ds: DataSource, queue: ClaimBenchQueue<Op>, op: Op, n: number, stats: Stats, runId: string, runs: number, withPlan: boolean): Promise<ClaimCell> {
  const schema = `${runId}_${op.replace('-', '_')}_${n}_${stats}`;
  const s = `"${schema}"`;
  try {
    await queue.migrate(ds, schema);
    if (stats === 'stale') {
      await ds.query(`ALTER TABLE ${s}.${queue.table} SET (autovacuum_enabled = false)`);
      await ds.query(`ANALYZE ${s}.${queue.table}`);
      await queue.fill(ds, s, n);
    } else {
      await queue.fill(ds, s, n);
      await ds.query(`ANALYZE ${s}.${queue.table}`);
    }
    const last: { query?: Recorded } = {};
    const operation = queue.open(recording(ds, last), schema);
    const call = async (): Promise<{ ms: number; rows: number }> => {
      const started = performance.now();
      const { rows, handBack } = await operation(op);
      const ms = performance.now() - started;
      const recorded = last.query;
      await handBack?.();
      last.query = recorded;
      return { ms, rows };
    };
    // A first call, untimed, records the statement to explain.
    await call();
    const explainFirst = await explain(ds, last.query as Recorded, false);
    const times: number[] = [];
    const rows: number[] = [];
    for (let i = 0; i < runs; i++) {
      const r = await call();
      times.push(r.ms);
      rows.push(r.rows);
    }
    const explainLast = await explain(ds, last.query as Recorded, withPlan);
    if (explainLast.text) process.stderr.write(`\n--- ${queue.name} ${op} N=${n} ${stats}\n${explainLast.text}\n`);
    delete explainLast.text;
    return { queue: queue.name, op, n, stats, runs, rowsPerCall: median(rows), medianMs: round(median(times)), maxMs: round(Math.max(...times)), explainFirst, explainLast };
  } finally {
    await ds.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
  }
}

/** The cells as a table, one line each. */
export function claimTable(results: readonly ClaimCell[]): string {
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

/**
 * Measures every operation of the queue at every size, with fresh and stale statistics (the plans
 * of the largest size on stderr with BENCH_PLANS=1); `tools/bench/claims.bench.ts` prints and
 * records the cells on the common runner.
 */
export async function runClaimBench<Op extends string>(queue: ClaimBenchQueue<Op>): Promise<ClaimCell[]> {
  const env = process.env;
  const url = env['DATABASE_URL'];
  if (!url) throw new Error('DATABASE_URL is not set (see .local/infra.env)');
  const runs = Number(env['BENCH_RUNS'] ?? 20);
  const sizes = (env['BENCH_SIZES'] ?? '0,10000,100000').split(',').map(Number);
  const runId = `bench_claims_${randomBytes(4).toString('hex')}`;
  const ds = await new DataSource({ type: 'postgres', url, extra: { max: 4, Client: PreparedStatementClient } }).initialize();
  const results: ClaimCell[] = [];
  try {
    for (const op of queue.operations) {
      for (const n of sizes) {
        for (const stats of ['fresh', 'stale'] as const) {
          const result = await measure(ds, queue, op, n, stats, runId, runs, env['BENCH_PLANS'] === '1' && n === Math.max(...sizes));
          results.push(result);
        }
      }
    }
  } finally {
    await ds.destroy();
  }
  return results;
}
