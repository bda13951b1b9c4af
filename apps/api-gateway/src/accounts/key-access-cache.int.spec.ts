import type { DataSource } from 'typeorm';
import { runMigrations } from '@seed/platform-event-store';
import { ServiceSchema } from '@seed/platform-nest';
import { dropSchema, openTestDataSource, testLogger, uniqueName } from '@seed/platform-testing';
import { AccessChangeListener, accessChannel } from './access-changes';
import { accountsMigrations } from './accounts.migrations';
import { AccountsRepository } from './accounts.repository';
import { KeyAccessCache } from './key-access-cache';

/** Two gateway replicas, each with its key cache and change listener, on the real PostgreSQL. */
const schema = uniqueName('it_key_cache');
const channel = accessChannel(schema);
let ds: DataSource;
let replicas: { repository: AccountsRepository; cache: KeyAccessCache; listener: AccessChangeListener }[];

beforeAll(async () => {
  ds = await openTestDataSource(4);
  await runMigrations(ds, schema, accountsMigrations);
  replicas = [0, 1].map(() => {
    const cache = new KeyAccessCache({ ttlMs: 60_000, maxEntries: 100 });
    const listener = new AccessChangeListener(process.env['DATABASE_URL'] as string, channel, cache, testLogger());
    listener.start();
    return { repository: new AccountsRepository(ds, new ServiceSchema(schema), cache), cache, listener };
  });
  await until(() => replicas.every((r) => r.cache.active), 10_000);
});

afterAll(async () => {
  await Promise.all(replicas.map((r) => r.listener.stop()));
  await dropSchema(ds, schema);
  await ds.destroy();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for `condition`; the milliseconds it took. */
async function until(condition: () => boolean | Promise<boolean>, withinMs: number): Promise<number> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`);
    await sleep(5);
  }
  return Date.now() - started;
}

/** Counts the key lookups that reach the database while `work` runs. */
async function lookupsDuring(work: () => Promise<unknown>): Promise<number> {
  const query = jest.spyOn(ds, 'query');
  try {
    await work();
    return query.mock.calls.filter(([text]) => String(text).includes('k.key_hash = $1')).length;
  } finally {
    query.mockRestore();
  }
}

type Replica = (typeof replicas)[number];
const a = (): Replica => replicas[0] as Replica;
const b = (): Replica => replicas[1] as Replica;

it('a replica admits a key it admitted lately without reading it again', async () => {
  const { subAccountId, key } = await a().repository.createAccount(uniqueName('acct'));
  expect(await lookupsDuring(() => b().repository.accessOf(key.apiKey, subAccountId))).toBe(1);
  expect(await lookupsDuring(() => b().repository.accessOf(key.apiKey, subAccountId))).toBe(0);
  expect(await b().repository.accessOf(key.apiKey, subAccountId)).toMatchObject({ ownsSubAccount: true, requestsPerSecond: null });
});

it('a refusal is asked again: a sub-account created after it works at once', async () => {
  const accountId = uniqueName('acct');
  const { key } = await a().repository.createAccount(accountId);
  const added = `${accountId}_eu`;
  expect(await b().repository.accessOf(key.apiKey, added)).toMatchObject({ ownsSubAccount: false });
  await a().repository.addSubAccount(accountId, added);
  expect(await b().repository.accessOf(key.apiKey, added)).toMatchObject({ ownsSubAccount: true });
});

it('a key revoked through one replica is refused by the other at once', async () => {
  const accountId = uniqueName('acct');
  const { subAccountId, key } = await a().repository.createAccount(accountId);
  for (const r of replicas) expect(await r.repository.accessOf(key.apiKey, subAccountId)).not.toBeNull();
  expect(await a().repository.revokeApiKey(accountId, key.apiKeyId)).toBe(true);
  const tookMs = await until(async () => (await b().repository.accessOf(key.apiKey, subAccountId)) === null, 1000);
  expect(tookMs).toBeLessThan(1000);
  expect(await a().repository.accessOf(key.apiKey, subAccountId)).toBeNull();
});

it('a rate limit set through one replica applies on the other at once', async () => {
  const accountId = uniqueName('acct');
  const { subAccountId, key } = await a().repository.createAccount(accountId);
  expect(await b().repository.accessOf(key.apiKey, subAccountId)).toMatchObject({ requestsPerSecond: null });
  expect(await a().repository.setRateLimit(accountId, 7)).toBe(true);
  await until(async () => (await b().repository.accessOf(key.apiKey, subAccountId))?.requestsPerSecond === 7, 1000);
});

it('while a replica cannot hear changes it reads every key from the database, and caches again once it can', async () => {
  const { subAccountId, key } = await a().repository.createAccount(uniqueName('acct'));
  expect(await b().repository.accessOf(key.apiKey, subAccountId)).not.toBeNull();
  // Both replicas' listening connections are cut by the server.
  await ds.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [`gateway ${channel}`]);
  await until(() => !b().cache.active, 2000);
  // A change no notification announces (made behind the gateway's back) is seen at once.
  await ds.query(`UPDATE "${schema}".api_keys SET revoked_at = now() WHERE api_key_id = $1`, [key.apiKeyId]);
  expect(await b().repository.accessOf(key.apiKey, subAccountId)).toBeNull();
  await until(() => replicas.every((r) => r.cache.active), 5000);
  const again = await a().repository.createAccount(uniqueName('acct'));
  await b().repository.accessOf(again.key.apiKey, again.subAccountId);
  expect(await lookupsDuring(() => b().repository.accessOf(again.key.apiKey, again.subAccountId))).toBe(0);
});
