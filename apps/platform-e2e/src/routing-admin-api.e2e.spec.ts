import type { RunningStack } from '@seed/platform-testing';
import { expectApiError, request } from './support/http';
import { consumeUntil } from './support/kafka';
import { useStack } from './support/stack';

/** Nothing listens there: the carriers of this file never bind, and no message is sent through them. */
const UNREACHABLE = '127.0.0.1:9';
const PASSWORD = 'pw4e2e';

/**
 * The carriers and routes admin API over HTTP, against the stack as `npm start` runs it: what is put
 * is listed back (never the password), bad input is refused with nothing changed, and the table's
 * consistency rules answer 409 and 404. How the replicas apply the table is carrier-routing's subject.
 */
describe('carriers and routes admin API', () => {
  const ctx = useStack();
  let stack: RunningStack;
  let call: (method: string, path: string, body?: unknown, token?: string | null) => Promise<Response>;
  const json = async <T>(res: Response, status = 200): Promise<T> => {
    const text = await res.text();
    expect({ status: res.status, text: res.status === status ? '' : text }).toEqual({ status, text: '' });
    return (text ? JSON.parse(text) : undefined) as T;
  };
  const table = async () => ({
    carriers: (await json<{ carriers: Record<string, unknown>[] }>(await call('GET', '/carriers'))).carriers,
    routes: (await json<{ routes: Record<string, unknown>[] }>(await call('GET', '/routes'))).routes,
  });

  beforeAll(() => {
    ({ stack } = ctx);
    call = (method, path, body, token = stack.adminToken) => request(`${stack.adminUrl}/admin/v1${path}`, { method, token, ...(body === undefined ? {} : { body }) });
  });

  it('creates carriers and lists them without their passwords', async () => {
    const created = await json<Record<string, unknown>>(await call('PUT', '/carriers/e2e-a', { url: `smpp://seed:${PASSWORD}@${UNREACHABLE}`, binds: 2, maxPerSecond: 50, rerouteOnErrors: ['0x0000000b'] }));
    expect(created).toEqual({
      carrierId: 'e2e-a',
      url: `smpp://seed@${UNREACHABLE}`,
      binds: 2,
      window: 100,
      maxPerSecond: 50,
      systemType: null,
      source: { ton: null, npi: null },
      destination: { ton: null, npi: null },
      enabled: true,
      rerouteOnErrors: ['0x0000000B'],
      configuredAt: expect.stringMatching(/Z$/),
    });
    await json(await call('PUT', '/carriers/e2e-b', { url: `smpps://seed:${PASSWORD}@${UNREACHABLE}`, enabled: false }));

    const { carriers } = await table();
    expect(carriers.map((c) => c['carrierId'])).toEqual(expect.arrayContaining(['e2e-a', 'e2e-b']));
    expect(carriers.find((c) => c['carrierId'] === 'e2e-b')).toMatchObject({ url: `smpps://seed@${UNREACHABLE}`, enabled: false });
    expect(await json(await call('GET', '/carriers/e2e-a'))).toEqual(created);
    const text = JSON.stringify(carriers);
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain('sealed');
  });

  it('keeps the password sealed in the log, and kept on a replace without one', async () => {
    const sealed = async () =>
      (
        await ctx.db.query<{ data: { sealedPassword: string } }>(
          `SELECT data FROM ${ctx.db.table('events')} WHERE stream_id = 'routing-config' AND type = 'CarrierConfigured' AND data->>'carrierId' = 'e2e-a' ORDER BY stream_position DESC LIMIT 1`,
        )
      )[0]?.data.sealedPassword;
    const before = await sealed();
    expect(before).toMatch(/^sealed\.v1\./);
    expect(before).not.toContain(PASSWORD);
    const replaced = await json<Record<string, unknown>>(await call('PUT', '/carriers/e2e-a', { url: `smpp://seed@${UNREACHABLE}`, binds: 3, maxPerSecond: 50 }));
    expect(replaced).toMatchObject({ binds: 3, rerouteOnErrors: [] });
    expect(await sealed()).toBe(before);
  });

  it('publishes the carrier on the event topic without its sealed password', async () => {
    const records = await consumeUntil(`${stack.topicPrefix}sms-batch.events.v1`, (all) => all.filter((r) => r.headers['message-type'] === 'CarrierConfigured').length >= 3);
    const published = records.filter((r) => r.headers['message-type'] === 'CarrierConfigured');
    expect(published.every((r) => r.key === 'routing-config')).toBe(true);
    expect(published.map((r) => (r.value['data'] as Record<string, unknown>)['carrierId'])).toEqual(expect.arrayContaining(['e2e-a', 'e2e-b']));
    for (const record of published) expect(record.value['data']).not.toHaveProperty('sealedPassword');
    expect(JSON.stringify(published)).not.toContain(PASSWORD);
  });

  it('sends the carrier URL to sms-batch sealed: the command topic never holds the password', async () => {
    const records = await consumeUntil(`${stack.topicPrefix}sms-batch.commands.v1`, (all) => all.filter((r) => r.value['type'] === 'PutCarrier').length >= 3);
    const puts = records.filter((r) => r.value['type'] === 'PutCarrier').map((r) => (r.value['data'] as { carrier: Record<string, unknown> }).carrier);
    expect(puts.filter((carrier) => carrier['sealedUrl'] !== null).every((carrier) => String(carrier['sealedUrl']).startsWith('sealed.v1.') && carrier['url'] === null)).toBe(true);
    expect(JSON.stringify(records)).not.toContain(PASSWORD);
  });

  it('creates routes and lists them in the order they are tried', async () => {
    const uk = await json<Record<string, unknown>>(
      await call('PUT', '/routes/e2e-uk', { position: 5, match: { prefixes: ['44'], countries: ['gb'] }, mode: 'weighted', carriers: [{ carrierId: 'e2e-a', weight: 70 }, { carrierId: 'e2e-b', weight: 30 }], price: { amount: '0.0125', currency: 'EUR' } }),
    );
    expect(uk).toEqual({
      routeId: 'e2e-uk',
      position: 5,
      match: { prefixes: ['44'], countries: ['GB'], accountIds: [], subAccountIds: [] },
      mode: 'weighted',
      carriers: [
        { carrierId: 'e2e-a', weight: 70 },
        { carrierId: 'e2e-b', weight: 30 },
      ],
      price: { amount: '0.0125', currency: 'EUR' },
      configuredAt: expect.stringMatching(/Z$/),
    });
    // Taking only what nobody sends to: account e2e-nobody has no messages, so no route catches real traffic.
    await json(await call('PUT', '/routes/e2e-all', { position: -1, match: { accountIds: ['e2e-nobody'] }, carriers: [{ carrierId: 'e2e-b' }] }));
    const { routes } = await table();
    expect(routes.map((r) => r['routeId'])).toEqual(['e2e-all', 'e2e-uk']);
    expect(routes[0]).toMatchObject({ mode: 'failover', carriers: [{ carrierId: 'e2e-b', weight: 1 }], price: null });
    expect(await json(await call('GET', '/routes/e2e-uk'))).toEqual(uk);
  });

  it.each<[string, string, unknown, string]>([
    ['a new carrier without password', '/carriers/e2e-c', { url: `smpp://seed@${UNREACHABLE}` }, 'password'],
    ['a new carrier without url', '/carriers/e2e-c', { binds: 1 }, 'url is required'],
    ['an http URL', '/carriers/e2e-a', { url: `http://seed:${PASSWORD}@${UNREACHABLE}` }, 'smpp://'],
    ['binds 0', '/carriers/e2e-a', { url: `smpp://seed:${PASSWORD}@${UNREACHABLE}`, binds: 0 }, 'binds must be an integer from 1 to 64'],
    ['a carrier id with capitals', '/carriers/E2E', { url: `smpp://seed:${PASSWORD}@${UNREACHABLE}` }, 'carrierId must be'],
    ['a route without carriers', '/routes/e2e-uk', { carriers: [] }, 'carriers must name at least one carrier'],
    ['a route with an unknown country', '/routes/e2e-uk', { match: { countries: ['XX'] }, carriers: [{ carrierId: 'e2e-a' }] }, 'match.countries[0]'],
    ['a route naming a carrier twice', '/routes/e2e-uk', { carriers: [{ carrierId: 'e2e-a' }, { carrierId: 'e2e-a' }] }, 'twice'],
    ['a body that is not an object', '/routes/e2e-uk', '[1]', 'JSON object'],
  ])('refuses %s with 400, code 1000, and changes nothing', async (_name, path, body, message) => {
    const before = await table();
    const error = await expectApiError(await call('PUT', path, body), 400, 1000);
    expect(error.message).toContain(message);
    expect(await table()).toEqual(before);
  });

  it('refuses to remove a carrier a route names (409), and a route naming an unknown carrier (409)', async () => {
    const named = await expectApiError(await call('DELETE', '/carriers/e2e-b'), 409, 1000);
    expect(named.message).toBe('carrier e2e-b is named by routes e2e-all, e2e-uk: change or remove them first');
    const unknown = await expectApiError(await call('PUT', '/routes/e2e-x', { carriers: [{ carrierId: 'e2e-nope' }] }), 409, 1000);
    expect(unknown.message).toBe('carrier e2e-nope is not configured: create it first');
    expect((await table()).carriers.map((c) => c['carrierId'])).toContain('e2e-b');
  });

  it('answers unknown carriers and routes with 404', async () => {
    await expectApiError(await call('GET', '/carriers/e2e-nope'), 404, 1300);
    await expectApiError(await call('DELETE', '/carriers/e2e-nope'), 404, 1300);
    await expectApiError(await call('GET', '/routes/e2e-nope'), 404, 1300);
    await expectApiError(await call('DELETE', '/routes/e2e-nope'), 404, 1300);
    await expectApiError(await call('GET', '/carriers/NOT%00AN-ID'), 404, 1300);
  });

  it('needs the admin token', async () => {
    await expectApiError(await call('GET', '/carriers', undefined, null), 401, 1200);
    await expectApiError(await call('PUT', '/carriers/e2e-z', { url: `smpp://seed:${PASSWORD}@${UNREACHABLE}` }, 'not-the-operator-secret-at-all'), 401, 1200);
    await expectApiError(await call('GET', '/carriers/e2e-z'), 404, 1300);
  });

  it('removes routes, then their carriers', async () => {
    for (const path of ['/routes/e2e-uk', '/routes/e2e-all', '/carriers/e2e-a', '/carriers/e2e-b']) {
      const res = await call('DELETE', path);
      expect({ path, status: res.status }).toEqual({ path, status: 204 });
      await expectApiError(await call('GET', path), 404, 1300);
    }
    const { carriers, routes } = await table();
    expect(carriers.map((c) => c['carrierId'])).not.toEqual(expect.arrayContaining(['e2e-a']));
    expect(routes.filter((r) => String(r['routeId']).startsWith('e2e-'))).toEqual([]);
  });
});
