import { Client, type ClientConfig, type QueryResult } from 'pg';

/** Distinct statements kept prepared per connection; past it, new texts run unnamed as before. */
export const MAX_PREPARED_PER_CONNECTION = 500;

/**
 * Starts the text of a query that must be planned on every call: one over a work queue, a table
 * that goes from a few rows to thousands within seconds. Postgres keeps a prepared statement's
 * generic plan once it has one, and a plan made while the table was nearly empty (sequential scans,
 * a nested-loop anti-join) cost 10 s per call at 10,000 rows where a fresh plan takes 6 ms; it
 * stayed until autovacuum's next ANALYZE, and webhooks stalled for 30-50 s.
 */
export const PLAN_EACH_CALL = '/* plan each call */';

/** Postgres refuses a prepared statement whose result columns changed under it (a table altered). */
const STALE_PLAN = '0A000';

/** What TypeORM's `START TRANSACTION` is answered with before Postgres has answered it. */
const BEGUN: QueryResult = { command: 'BEGIN', rowCount: null, oid: 0, rows: [], fields: [] };

/**
 * Postgres answers the COMMIT of a transaction a failed statement aborted with `ROLLBACK`, not an
 * error. A statement written ahead without waiting for its answer (pipelined) may be the one that
 * failed, so the commit is an error then: nothing of the transaction was written.
 */
function committed(result: QueryResult): QueryResult {
  if (result.command === 'ROLLBACK') throw new TransactionRolledBackError();
  return result;
}

export class TransactionRolledBackError extends Error {
  constructor() {
    super('the transaction was rolled back: one of its statements failed');
    this.name = 'TransactionRolledBackError';
  }
}

/** The pool's options for this client (node-postgres passes the pool's options to each client). */
export interface PlatformClientConfig extends ClientConfig {
  /** Run parameterised queries as named prepared statements (default true). */
  preparedStatements?: boolean;
}

/**
 * node-postgres's client, with every parameterised query run as a named prepared statement: the
 * server parses and plans it once per connection instead of on every call. The platform's queries
 * are short ones on indexes, so planning cost more than executing (figures in docs/decisions.md).
 *
 * Only queries with parameters change: they already take the extended protocol, so the one
 * difference is the statement's name. Queries without parameters (`BEGIN`, `COMMIT`, migrations,
 * multi-statement scripts) go as they did, and so do texts starting with PLAN_EACH_CALL. Statement
 * texts are fixed in the code (values always travel as parameters), so the number of names stays
 * small; a cap bounds it anyway.
 *
 * The connection is pipelined (node-postgres's `pipeline` mode): a query is written as soon as it
 * is made, not after the one before it was answered, so statements a caller issues together
 * (`Promise.all`) cost one round trip, and the per-statement CPU of both ends drops to about a
 * third (figures in docs/decisions.md). Each query keeps its own Sync, so an error fails that query
 * alone (inside a transaction, Postgres then refuses the rest until the rollback, as before).
 * TypeORM's `START TRANSACTION` is answered at once and its statement written ahead of the
 * transaction's first one: a transaction costs one round trip less. Its real answer still counts:
 * the query after it fails if it failed.
 *
 * Used as the pool's `Client` (TypeORM's `extra.Client`), so TypeORM and everything above it are
 * unchanged.
 */
export class PreparedStatementClient extends Client {
  private readonly names = new Map<string, string>();
  private nextName = 1;
  private readonly prepares: boolean;
  /** A `START TRANSACTION` answered before Postgres answered it; the next query waits for it too. */
  private unconfirmedBegin: Promise<unknown> | undefined;
  private corked = false;

  constructor(config: PlatformClientConfig | string = {}) {
    const options = typeof config === 'string' ? { connectionString: config } : config;
    super({ ...options, pipeline: true });
    this.prepares = options.preparedStatements ?? true;
  }

  // The signature is pg's widest overload; only the (text, values) promise form is changed.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(config: any, values?: any, callback?: any): any {
    if (callback !== undefined || typeof config !== 'string') return super.query(config, values, callback);
    if (config === 'START TRANSACTION' && (values === undefined || values.length === 0) && this.unconfirmedBegin === undefined) {
      this.corkUntilNextTick();
      const begin = super.query(config) as Promise<QueryResult>;
      begin.catch(() => undefined); // its failure reaches the caller through the next query
      this.unconfirmedBegin = begin;
      return Promise.resolve(BEGUN);
    }
    const begin = this.unconfirmedBegin;
    this.unconfirmedBegin = undefined;
    const sent = this.send(config, values);
    const result = config === 'COMMIT' ? sent.then(committed) : sent;
    if (!begin) return result;
    // Answered in order: the begin's answer has come by the time this query's has.
    return begin.then(
      () => result,
      (error: unknown) => {
        result.catch(() => undefined);
        throw error;
      },
    );
  }

  private send(text: string, values: unknown[] | undefined): Promise<QueryResult> {
    this.corkUntilNextTick();
    if (this.prepares && Array.isArray(values) && values.length > 0 && !text.startsWith(PLAN_EACH_CALL)) {
      const name = this.nameFor(text);
      if (name) return this.queryPrepared(name, text, values);
    }
    return super.query(text, values) as Promise<QueryResult>;
  }

  /**
   * Queries made in one tick (a `Promise.all`, a begin and the statement after it) leave in one
   * write: on this machine a socket write, with the wake-up of the process it reaches, costs more
   * than the statement.
   */
  private corkUntilNextTick(): void {
    if (this.corked) return;
    const stream = (this as unknown as { connection: { stream: { cork?: () => void; uncork?: () => void } } }).connection.stream;
    if (!stream.cork || !stream.uncork) return;
    this.corked = true;
    stream.cork();
    process.nextTick(() => {
      this.corked = false;
      stream.uncork?.();
    });
  }

  private nameFor(text: string): string | undefined {
    const known = this.names.get(text);
    if (known || this.names.size >= MAX_PREPARED_PER_CONNECTION) return known;
    const name = `p${this.nextName++}`;
    this.names.set(text, name);
    return name;
  }

  private async queryPrepared(name: string, text: string, values: unknown[]): Promise<QueryResult> {
    try {
      return await super.query({ name, text, values });
    } catch (error) {
      // The statement cannot be used again; the next call prepares the text under a new name. The
      // failed query is not retried here: inside a transaction the caller has to start over anyway.
      if ((error as { code?: unknown }).code === STALE_PLAN) this.names.delete(text);
      throw error;
    }
  }
}
