import type { DataSource, QueryRunner } from 'typeorm';
import { dropSchema, openTestDataSource, uniqueName } from '@seed/platform-testing';
import { MAX_PREPARED_PER_CONNECTION, PLAN_EACH_CALL } from './prepared-statement-client';

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
