import type { DataSource, QueryRunner } from 'typeorm';
import { dropSchema, openTestDataSource, uniqueName } from '@seed/platform-testing';
import { MAX_PREPARED_PER_CONNECTION, PLAN_EACH_CALL, TransactionRolledBackError } from './prepared-statement-client';

const schema = uniqueName('it_prepared');
let ds: DataSource;
let connection: DataSource;
let runner: QueryRunner;

/** The statements this connection has prepared on the server, by text. */
const prepared = async (): Promise<string[]> =>
  (await runner.query('SELECT statement FROM pg_prepared_statements')).map((r: { statement: string }) => r.statement);

beforeAll(async () => {
  ds = await openTestDataSource(1);
  await ds.query(`CREATE SCHEMA "${schema}"`);
  await ds.query(`CREATE TABLE "${schema}".items (id int PRIMARY KEY, name text)`);
  await ds.query(`INSERT INTO "${schema}".items VALUES (1, 'one'), (2, 'two')`);
});

// Each test on a connection of its own, so that it starts with nothing prepared.
beforeEach(async () => {
  connection = await openTestDataSource(1);
  runner = connection.createQueryRunner();
  await runner.connect();
});

afterEach(async () => {
  await runner.release();
  await connection.destroy();
});

afterAll(async () => {
  await dropSchema(ds, schema);
  await ds.destroy();
});

describe('PreparedStatementClient (the services pool client)', () => {
  const byId = `SELECT name FROM "${schema}".items WHERE id = $1`;

  it('prepares a parameterised query once per connection and answers each call with its own values', async () => {
    expect(await runner.query(byId, [1])).toEqual([{ name: 'one' }]);
    expect(await runner.query(byId, [2])).toEqual([{ name: 'two' }]);
    expect(await runner.query(byId, [3])).toEqual([]);
    expect((await prepared()).filter((s) => s === byId)).toHaveLength(1);
  });

  it('leaves queries without parameters unprepared, multi-statement ones included', async () => {
    await runner.query(`SELECT 1; SELECT count(*) FROM "${schema}".items`);
    expect(await prepared()).toEqual([]);
  });

  it('leaves a query marked PLAN_EACH_CALL unprepared, so each call gets a plan for the table as it is now', async () => {
    const queueClaim = `${PLAN_EACH_CALL} SELECT id FROM "${schema}".items WHERE id >= $1 ORDER BY id LIMIT 10`;
    for (let i = 0; i < 7; i++) expect(await runner.query(queueClaim, [1])).toEqual([{ id: 1 }, { id: 2 }]);
    expect(await prepared()).toEqual([]);
  });

  it('keeps the result shape TypeORM gives for UPDATE (rows and count)', async () => {
    const result = await runner.query(`UPDATE "${schema}".items SET name = name WHERE id = ANY($1::int[])`, [[1, 2]]);
    expect(result).toEqual([[], 2]);
  });

  it('passes errors through with their code, and the statement stays usable', async () => {
    const insert = `INSERT INTO "${schema}".items (id, name) VALUES ($1, $2)`;
    await expect(runner.query(insert, [1, 'again'])).rejects.toMatchObject({ driverError: { code: '23505' } });
    await runner.query(insert, [3, 'three']);
    expect(await runner.query(byId, [3])).toEqual([{ name: 'three' }]);
    await runner.query(`DELETE FROM "${schema}".items WHERE id = $1`, [3]);
  });

  it('prepares anew a statement whose result changed under it (a column added)', async () => {
    const all = `SELECT * FROM "${schema}".items WHERE id = $1`;
    expect(await runner.query(all, [1])).toEqual([{ id: 1, name: 'one' }]);
    await ds.query(`ALTER TABLE "${schema}".items ADD COLUMN note text`);
    try {
      // Postgres refuses the old plan once; the same call then works under a new name.
      await expect(runner.query(all, [1])).rejects.toMatchObject({ driverError: { code: '0A000' } });
      expect(await runner.query(all, [1])).toEqual([{ id: 1, name: 'one', note: null }]);
    } finally {
      await ds.query(`ALTER TABLE "${schema}".items DROP COLUMN note`);
    }
  });

  it(`prepares at most ${MAX_PREPARED_PER_CONNECTION} texts per connection and runs the rest unnamed`, async () => {
    for (let i = 0; i < MAX_PREPARED_PER_CONNECTION + 20; i++) {
      expect(await runner.query(`SELECT $1::int + ${i} AS n`, [1])).toEqual([{ n: 1 + i }]);
    }
    expect(await prepared()).toHaveLength(MAX_PREPARED_PER_CONNECTION);
  });
});

describe('PreparedStatementClient pipelining', () => {
  const byId = `SELECT name FROM "${schema}".items WHERE id = $1`;

  /** The socket writes the runner's connection makes while `work` runs (each is one syscall). */
  async function writesDuring(work: () => Promise<unknown>): Promise<number> {
    const stream = (runner as unknown as { databaseConnection: { connection: { stream: Record<string, unknown> } } }).databaseConnection.connection.stream;
    let writes = 0;
    const spy = (name: '_write' | '_writev') => {
      const original = stream[name] as (...args: unknown[]) => unknown;
      stream[name] = function (this: unknown, ...args: unknown[]) {
        writes++;
        return original.apply(this, args);
      };
      return () => (stream[name] = original);
    };
    const restore = [spy('_write'), spy('_writev')];
    try {
      await work();
    } finally {
      for (const undo of restore) undo();
    }
    return writes;
  }

  it('sends the statements made in one tick in one write, and answers each with its own rows', async () => {
    await runner.query(byId, [1]); // prepared before, so the count below is the pipelined calls alone
    let answers: unknown[] = [];
    const writes = await writesDuring(async () => {
      answers = await Promise.all([runner.query(byId, [1]), runner.query(byId, [2]), runner.query(byId, [3])]);
    });
    expect(writes).toBe(1);
    expect(answers).toEqual([[{ name: 'one' }], [{ name: 'two' }], []]);
  });

  it('writes a transaction\'s begin with its first statement', async () => {
    const writes = await writesDuring(async () => {
      await runner.startTransaction();
      expect(await runner.query(byId, [2])).toEqual([{ name: 'two' }]);
      await runner.commitTransaction();
    });
    expect(writes).toBe(2); // begin and select, then commit
  });

  it('fails only the failing statement of a pipeline outside a transaction', async () => {
    const insert = `INSERT INTO "${schema}".items (id, name) VALUES ($1, $2)`;
    const [duplicate, fresh] = await Promise.allSettled([runner.query(insert, [1, 'again']), runner.query(insert, [4, 'four'])]);
    expect(duplicate).toMatchObject({ status: 'rejected', reason: { driverError: { code: '23505' } } });
    expect(fresh.status).toBe('fulfilled');
    expect(await runner.query(byId, [4])).toEqual([{ name: 'four' }]);
    await runner.query(`DELETE FROM "${schema}".items WHERE id = $1`, [4]);
  });

  it('refuses to call a transaction committed when a statement written ahead of the commit failed, and writes none of it', async () => {
    const insert = `INSERT INTO "${schema}".items (id, name) VALUES ($1, $2)`;
    await runner.startTransaction();
    const written = runner.query(insert, [5, 'five']);
    const failed = runner.query(insert, [1, 'again']).catch((error: unknown) => error);
    // The commit is made before the failure is known: Postgres answers it with ROLLBACK.
    await expect(runner.commitTransaction()).rejects.toMatchObject({ driverError: expect.any(TransactionRolledBackError) });
    await written;
    expect(await failed).toMatchObject({ driverError: { code: '23505' } });
    expect(await ds.query(byId, [5])).toEqual([]);
  });
});
