import type { DataSource } from 'typeorm';
import { runMigrations } from '@seed/platform-event-store';
import { ServiceSchema } from '@seed/platform-nest';
import { dropSchema, openTestDataSource, uniqueName } from '@seed/platform-testing';
import { accountsMigrations } from '../accounts/accounts.migrations';
import type { GatewayConfig } from '../gateway.config';
import { ApiError } from '../http/api-error';
import { RequestRateLimits } from './request-rate-limits';

/** Gateway replicas sharing sub-accounts' limits through the real PostgreSQL. */
const schema = uniqueName('it_rate_limits');
const LIMIT = 200;
let ds: DataSource;

beforeAll(async () => {
  ds = await openTestDataSource(6);
  await runMigrations(ds, schema, accountsMigrations);
});

afterAll(async () => {
  await dropSchema(ds, schema);
  await ds.destroy();
});

const replica = () => new RequestRateLimits({ RATE_LIMIT_PER_SECOND: LIMIT } as GatewayConfig, ds, new ServiceSchema(schema));

/** Tries a request; true when admitted, false on the contract's 429. */
async function tryRequest(limits: RequestRateLimits, subAccountId: string, accountLimit: number | null = null): Promise<boolean> {
  try {
    await limits.admit(subAccountId, accountLimit);
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 429 && error.code === 1600 && error.retryAfterSeconds === 1) return false;
    throw error;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('three replicas flooded with requests admit the limit together each second, never more', async () => {
  const replicas = [replica(), replica(), replica()];
  const admittedPerSecond = new Map<number, number>();
  const until = Date.now() + 3_200;
  // Each replica gets 20 requests every 5 ms, about 12,000/s together against a limit of 200.
  while (Date.now() < until) {
    await Promise.all(
      replicas.flatMap((limits) =>
        Array.from({ length: 20 }, async () => {
          const second = Math.floor(Date.now() / 1000);
          if (await tryRequest(limits, 'flooded_hq')) admittedPerSecond.set(second, (admittedPerSecond.get(second) ?? 0) + 1);
        }),
      ),
    );
    await sleep(5);
  }
  const rows: { second: string; granted: number }[] = await ds.query(
    `SELECT second, granted FROM "${schema}".request_grants WHERE sub_account_id = 'flooded_hq' ORDER BY second`,
  );
  expect(rows.length).toBeGreaterThanOrEqual(3);
  // The shared ledger never grants a second more than the limit, and no replica admits a request
  // it holds no grant for. (Counted by this test's clock instead, a request taken up just before a
  // second ends and admitted in the next once made one second read 201.)
  for (const row of rows) expect(row.granted).toBeLessThanOrEqual(LIMIT);
  const admittedInAll = [...admittedPerSecond.values()].reduce((a, b) => a + b, 0);
  expect(admittedInAll).toBeLessThanOrEqual(rows.reduce((sum, row) => sum + row.granted, 0));
  // Whole seconds (not the first or last, cut by the test's start and end): the limit is reached.
  const whole = [...admittedPerSecond.keys()].sort().slice(1, -1);
  for (const second of whole) expect(admittedPerSecond.get(second)).toBeGreaterThanOrEqual(LIMIT * 0.9);
});

it("an account's own limit replaces the default, and each sub-account counts on its own", async () => {
  const [a, b] = [replica(), replica()];
  await sleep(1_000 - (Date.now() % 1_000) + 10); // a whole second ahead
  const own = await Promise.all(Array.from({ length: 30 }, (_, i) => tryRequest(i % 2 ? a : b, 'own_hq', 12)));
  const other = await Promise.all(Array.from({ length: 30 }, (_, i) => tryRequest(i % 2 ? a : b, 'other_hq')));
  expect(own.filter(Boolean)).toHaveLength(12);
  expect(other.filter(Boolean)).toHaveLength(30);
});
