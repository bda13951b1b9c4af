import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { CommandMessage, CommandReply } from '@seed/contracts';
import { EventStore } from '@seed/platform-event-store';
import type { CommandContext } from '@seed/platform-kafka';
import { dropSchema, openTestDataSource, testLogger, uniqueName } from '@seed/platform-testing';
import { isSealed } from '@seed/platform-secrets';
import { ROUTING_CONFIG_STREAM, type CarrierConfiguredV1, type CarrierInput, type RouteInput } from '@seed/sms-batch-contracts';
import { migrateSmsBatchSchema, pipelineOf } from '../sms-batch.test-helpers';
import { CarrierPasswords } from './carrier-passwords';
import { readRoutingConfig } from './read-routing-config';
import { RoutingConfigHandler } from './routing-config.handler';

const SEALING_KEYS = `k1:${Buffer.alloc(32, 9).toString('base64')}`;
const schema = uniqueName('it_routing_config');
const store = new EventStore(schema);
const passwords = new CarrierPasswords(SEALING_KEYS);
let ds: DataSource;
let handler: RoutingConfigHandler;

const context: CommandContext = { correlationId: 'corr-routing', causationId: 'cause', traceparent: null };
const commandOf = <T, K extends string>(type: K, data: T, commandId: string = randomUUID()): CommandMessage<T, K> => ({ commandId, type, issuedAt: new Date().toISOString(), data });

const carrier = (overrides: Partial<CarrierInput> = {}): CarrierInput => ({
  url: 'smpp://seed:s3cret@smsc-a.example:2775',
  binds: 2,
  window: 100,
  maxPerSecond: null,
  systemType: null,
  source: { ton: null, npi: null },
  destination: { ton: null, npi: null },
  enabled: true,
  rerouteOnErrors: [],
  ...overrides,
});
const route = (carriers: string[], overrides: Partial<RouteInput> = {}): RouteInput => ({
  position: 0,
  match: { prefixes: ['44'], countries: [], accountIds: [], subAccountIds: [] },
  mode: 'failover',
  carriers: carriers.map((carrierId) => ({ carrierId, weight: 1 })),
  price: null,
  ...overrides,
});

/** As the gateway sends it: the URL sealed, the plain one null. */
const sealedInput = (input: CarrierInput): CarrierInput => (input && input.url ? { ...input, url: null, sealedUrl: passwords.seal(input.url) } : input);
const putCarrier = (carrierId: string, input: CarrierInput, commandId?: string) => handler.putCarrier(commandOf('PutCarrier', { carrierId, carrier: sealedInput(input) }, commandId), context);
const putRoute = (routeId: string, input: RouteInput) => handler.putRoute(commandOf('PutRoute', { routeId, route: input }), context);
const removeCarrier = (carrierId: string, commandId?: string) => handler.removeCarrier(commandOf('RemoveCarrier', { carrierId }, commandId), context);
const removeRoute = (routeId: string) => handler.removeRoute(commandOf('RemoveRoute', { routeId }), context);

function ok<T>(reply: CommandReply<T>): T {
  if (!reply.ok) throw new Error(`refused: ${JSON.stringify(reply.failure)}`);
  return reply.result;
}
const stored = async (): Promise<{ type: string; data: Record<string, unknown>; streamPosition: number }[]> =>
  (await store.readStream(ds.manager, ROUTING_CONFIG_STREAM)).map((e) => ({ type: e.type, data: e.data as Record<string, unknown>, streamPosition: e.streamPosition }));
const storedCarrier = async (carrierId: string): Promise<CarrierConfiguredV1> =>
  (await readRoutingConfig(ds.manager, store)).state.carriers.get(carrierId) as CarrierConfiguredV1;

beforeAll(async () => {
  ds = await openTestDataSource(4);
  await migrateSmsBatchSchema(ds, schema);
  const logger = testLogger();
  handler = new RoutingConfigHandler(ds, store, pipelineOf(ds, store, schema, logger), passwords, logger);
});

afterAll(async () => {
  await dropSchema(ds, schema);
  await ds.destroy();
});

describe('RoutingConfigHandler', () => {
  it('puts a carrier: the password sealed in the stored event, never in the answer', async () => {
    const view = ok(await putCarrier('a', carrier()));
    expect(view).toMatchObject({ carrierId: 'a', url: 'smpp://seed@smsc-a.example:2775', binds: 2, window: 100, enabled: true });
    expect(JSON.stringify(view)).not.toContain('s3cret');
    const [event] = await stored();
    expect(event?.type).toBe('CarrierConfigured');
    expect(JSON.stringify(event)).not.toContain('s3cret');
    const sealed = event?.data['sealedPassword'] as string;
    expect(isSealed(sealed)).toBe(true);
    expect(passwords.open(sealed)).toBe('s3cret');
    const metadata = (await ds.query(`SELECT metadata FROM "${schema}".events WHERE stream_id = $1`, [ROUTING_CONFIG_STREAM]))[0].metadata;
    expect(metadata).toMatchObject({ correlationId: 'corr-routing' });
  });

  it('appends nothing for a PUT of what is stored, with or without the password', async () => {
    const before = (await stored()).length;
    ok(await putCarrier('a', carrier()));
    ok(await putCarrier('a', carrier({ url: 'smpp://seed@smsc-a.example:2775' })));
    expect((await stored()).length).toBe(before);
  });

  it('keeps the stored password on a replace without one to the same endpoint, and replaces it when one is given', async () => {
    const sealedBefore = (await storedCarrier('a')).sealedPassword;
    ok(await putCarrier('a', carrier({ url: 'smpp://seed@smsc-a.example:2775', window: 50 })));
    const kept = await storedCarrier('a');
    expect(kept).toMatchObject({ tls: false, port: 2775, window: 50, sealedPassword: sealedBefore });
    // Moved (another scheme and port) without the password: refused, nothing written.
    const before = (await stored()).length;
    const moved = await putCarrier('a', carrier({ url: 'smpps://seed@smsc-a.example:3550' }));
    expect(moved).toMatchObject({ ok: false, failure: { status: 400, code: 1000, message: expect.stringContaining('must carry the password') } });
    expect((await stored()).length).toBe(before);
    ok(await putCarrier('a', carrier({ url: 'smpp://seed:n3w@smsc-a.example' })));
    expect(passwords.open((await storedCarrier('a')).sealedPassword)).toBe('n3w');
    ok(await putCarrier('a', carrier({ url: null, window: 60 })));
    expect(await storedCarrier('a')).toMatchObject({ tls: false, host: 'smsc-a.example', port: 2775, systemId: 'seed', window: 60 });
    expect(passwords.open((await storedCarrier('a')).sealedPassword)).toBe('n3w');
  });

  it('refuses bad input with 400 and writes nothing', async () => {
    const before = (await stored()).length;
    const refusals = [
      await putCarrier('b', carrier({ url: 'smpp://seed@smsc-b.example' })),
      await putCarrier('b', carrier({ url: 'http://seed:pw@smsc-b.example' })),
      await putCarrier('b', carrier({ url: null })),
      await putCarrier('b', carrier({ binds: 0 })),
      await putCarrier('B', carrier()),
      await handler.putCarrier(commandOf('PutCarrier', { carrierId: 'b', carrier: null as unknown as CarrierInput }), context),
      // A password in clear on the command topic, as no gateway sends it.
      await handler.putCarrier(commandOf('PutCarrier', { carrierId: 'b', carrier: carrier({ url: 'smpp://seed:pw@smsc-b.example' }) }), context),
      await putRoute('r', route(['a'], { mode: 'sideways' as RouteInput['mode'] })),
    ];
    for (const reply of refusals) expect(reply).toMatchObject({ ok: false, failure: { status: 400, code: 1000 } });
    expect(refusals[0]).toMatchObject({ failure: { message: expect.stringContaining('password') } });
    expect(refusals[6]).toMatchObject({ failure: { message: 'a carrier password is taken only sealed (sealedUrl), never in a plain url' } });
    expect((await stored()).length).toBe(before);
  });

  it('puts routes only over configured carriers, and refuses to remove a carrier a route names (409)', async () => {
    expect(await putRoute('uk', route(['a', 'b']))).toMatchObject({ ok: false, failure: { status: 409, code: 1000, message: 'carrier b is not configured: create it first' } });
    ok(await putCarrier('b', carrier({ url: 'smpp://seed:pw@smsc-b.example' })));
    const view = ok(await putRoute('uk', route(['a', 'b'], { price: { amount: '0.0125', currency: 'EUR' } })));
    expect(view).toMatchObject({ routeId: 'uk', carriers: [{ carrierId: 'a' }, { carrierId: 'b' }], price: { amount: '0.0125', currency: 'EUR' } });
    expect(await removeCarrier('b')).toMatchObject({ ok: false, failure: { status: 409, message: 'carrier b is named by route uk: change or remove it first' } });
  });

  it('answers unknown carriers and routes with 404', async () => {
    expect(await removeCarrier('nope')).toEqual({ ok: false, failure: { status: 404, code: 1300, message: 'no carrier nope' } });
    expect(await removeRoute('nope')).toEqual({ ok: false, failure: { status: 404, code: 1300, message: 'no route nope' } });
  });

  it('lists the table without passwords, routes in order', async () => {
    ok(await putRoute('all', route(['b'], { position: -1, match: { prefixes: [], countries: [], accountIds: [], subAccountIds: [] } })));
    const table = ok(await handler.getRoutingTable(commandOf('GetRoutingTable', {})));
    expect(table.carriers.map((c) => c.carrierId)).toEqual(['a', 'b']);
    expect(table.routes.map((r) => r.routeId)).toEqual(['all', 'uk']);
    expect(JSON.stringify(table)).not.toMatch(/sealed|s3cret|n3w/);
  });

  it('removes a route, then its carrier; a redelivered removal gets its first answer', async () => {
    ok(await removeRoute('uk'));
    ok(await removeRoute('all'));
    const commandId = randomUUID();
    expect(ok(await removeCarrier('b', commandId))).toEqual({ carrierId: 'b' });
    expect(ok(await removeCarrier('b', commandId))).toEqual({ carrierId: 'b' });
    expect(await removeCarrier('b')).toMatchObject({ ok: false, failure: { status: 404 } });
    const events = await stored();
    expect(events.slice(-3).map((e) => e.type)).toEqual(['RouteRemoved', 'RouteRemoved', 'CarrierRemoved']);
    expect(events.map((e) => e.streamPosition)).toEqual(events.map((_, i) => i + 1));
  });

  it('reads the table incrementally from a snapshot, leaving the snapshot as it was', async () => {
    const first = await readRoutingConfig(ds.manager, store);
    expect(await readRoutingConfig(ds.manager, store, first)).toBe(first);
    ok(await putCarrier('c', carrier({ url: 'smpp://seed:pw@smsc-c.example' })));
    const next = await readRoutingConfig(ds.manager, store, first);
    expect(next.version).toBe(first.version + 1);
    expect(next.state.carriers.has('c')).toBe(true);
    expect(first.state.carriers.has('c')).toBe(false);
    expect(await readRoutingConfig(ds.manager, store)).toEqual(next);
  });

  it('decides concurrent commands one after another: both land, at consecutive versions', async () => {
    const before = (await readRoutingConfig(ds.manager, store)).version;
    const replies = await Promise.all([
      putCarrier('d', carrier({ url: 'smpp://seed:pw@smsc-d.example' })),
      putCarrier('e', carrier({ url: 'smpp://seed:pw@smsc-e.example' })),
    ]);
    for (const reply of replies) expect(reply.ok).toBe(true);
    const after = await readRoutingConfig(ds.manager, store);
    expect(after.version).toBe(before + 2);
    expect([...after.state.carriers.keys()]).toEqual(expect.arrayContaining(['d', 'e']));
  });
});
