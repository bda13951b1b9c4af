import type { DataSource } from 'typeorm';
import { EventStore, eventStoreSchema, runMigrations } from '@seed/platform-event-store';
import { ServiceSchema } from '@seed/platform-nest';
import { dropSchema, openTestDataSource, uniqueName } from '@seed/platform-testing';
import { decideAccountWebhook, signingSecretsAt } from '@seed/webhook-dispatcher-domain';
import { webhookMigrations } from '../webhook.migrations';
import { AccountWebhooksStore } from './account-webhooks.store';

/** The accounts' webhook settings against the real schema: secrets that sign after rotations, and the migration to a list of them. */
const schema = uniqueName('it_webhook_accounts');
let ds: DataSource;

beforeAll(async () => {
  ds = await openTestDataSource(2);
  // Up to the first webhook migration only, with a row as it stored a rotation then.
  await runMigrations(ds, schema, [...eventStoreSchema, webhookMigrations[0]!]);
  await ds.query(
    `INSERT INTO "${schema}".account_webhooks (account_id, dlr_callback_url, sealed_secret, previous_sealed_secret, previous_valid_until, version)
     VALUES ('before', NULL, 's2', 's1', '2030-01-15T11:00:00.000Z', 2)`,
  );
  await runMigrations(ds, schema, [...eventStoreSchema, ...webhookMigrations]);
});

afterAll(async () => {
  await dropSchema(ds, schema);
  await ds.destroy();
});

const meta = (at: string) => ({ correlationId: 't', causationId: null, occurredAt: at });

describe('account webhook settings', () => {
  const accounts = () => new AccountWebhooksStore(new EventStore(schema), new ServiceSchema(schema));

  it('keeps a previous secret stored before the migration', async () => {
    const loaded = (await accounts().load(ds.manager, ['before'], false)).get('before');
    expect(loaded?.state.previousSecrets).toEqual([{ sealedSecret: 's1', validUntil: '2030-01-15T11:00:00.000Z' }]);
    expect(signingSecretsAt(loaded!.state, Date.parse('2030-01-15T10:59:00.000Z'))).toEqual(['s2', 's1']);
  });

  it('stores every replaced secret still in its overlap, so two rotations in a row keep both signing', async () => {
    const store = accounts();
    const steps = [
      { at: '2030-01-15T10:00:00.000Z', command: 'EnsureSecret' as const, secret: 's1' },
      { at: '2030-01-15T10:00:00.000Z', command: 'RotateSecret' as const, secret: 's2' },
      { at: '2030-01-15T10:10:00.000Z', command: 'RotateSecret' as const, secret: 's3' },
    ];
    for (const { at, command, secret } of steps) {
      await ds.transaction(async (tx) => {
        const loaded = (await store.load(tx, ['acme'])).get('acme')!;
        const events = decideAccountWebhook(
          command === 'EnsureSecret'
            ? { type: 'EnsureSecret', accountId: 'acme', newSealedSecret: secret, at }
            : { type: 'RotateSecret', accountId: 'acme', newSealedSecret: secret, overlapMs: 3600_000, at },
          loaded.state,
        );
        await store.apply(tx, 'acme', loaded, events, meta(at));
      });
    }
    const state = (await store.load(ds.manager, ['acme'], false)).get('acme')!.state;
    expect(signingSecretsAt(state, Date.parse('2030-01-15T10:20:00.000Z'))).toEqual(['s3', 's2', 's1']);
  });
});
