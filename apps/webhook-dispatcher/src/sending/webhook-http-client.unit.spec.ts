import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseAllowedHosts } from '@seed/webhook-dispatcher-domain';
import type { Resolver } from './guarded-lookup';
import { WebhookHttpClient } from './webhook-http-client';

/** A loopback receiver; the client reaches it only through an allow-list entry or a stubbed resolver. */
describe('webhook HTTP client and its address guard', () => {
  let server: Server;
  let port: number;
  const received: { url: string; headers: IncomingMessage['headers']; body: string }[] = [];
  let answer: (url: string) => { status: number; hang?: boolean; cut?: boolean; location?: string } = () => ({ status: 204 });

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ url: req.url ?? '', headers: req.headers, body });
        const a = answer(req.url ?? '');
        if (a.hang) return;
        if (a.cut) {
          res.writeHead(a.status, { 'content-length': '100' });
          res.write('partial', () => req.socket.destroy());
          return;
        }
        res.writeHead(a.status, a.location ? { location: a.location } : {});
        res.end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => {
    received.length = 0;
    answer = () => ({ status: 204 });
  });

  const client = (allowed: string, resolver?: Resolver, timeoutMs = 2000) =>
    new WebhookHttpClient({ timeoutMs, allowedHosts: parseAllowedHosts(allowed), socketsPerEndpoint: 4, ...(resolver ? { resolver } : {}) });
  const resolvingTo =
    (...addresses: string[]): Resolver =>
    async () =>
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  it('posts the body with the given headers to an allowed host and reports a 2xx as success', async () => {
    const c = client('127.0.0.1');
    const outcome = await c.post(`http://127.0.0.1:${port}/dlr`, '{"a":1}', { 'x-seed-delivery-id': 'd1' });
    c.destroy();
    expect(outcome).toEqual({ kind: 'success', statusCode: 204 });
    expect(received).toMatchObject([{ url: '/dlr', body: '{"a":1}', headers: { 'x-seed-delivery-id': 'd1', 'content-type': 'application/json' } }]);
  });

  it.each([
    ['http://127.0.0.1:PORT/', 'loopback'],
    ['http://[::1]:PORT/', 'loopback'],
    ['http://169.254.169.254/latest/meta-data/', 'linkLocal'],
    ['http://10.0.0.1/', 'private'],
    ['http://100.64.1.1/', 'carrierGradeNat'],
    ['http://[::ffff:127.0.0.1]:PORT/', 'loopback'],
    ['http://0.0.0.0:PORT/', 'unspecified'],
    ['http://[::127.0.0.1]:PORT/', 'ipv4Compatible'], // the URL spells it [::7f00:1]
  ])('refuses %s without a request (%s)', async (url, range) => {
    const c = client('');
    const outcome = await c.post(url.replace('PORT', String(port)), '{}', {});
    c.destroy();
    expect(outcome).toMatchObject({ kind: 'refused' });
    expect((outcome as { reason: string }).reason).toContain(range);
    expect(received).toEqual([]);
  });

  it('refuses a name that resolves to a private address, checked on the address connected to', async () => {
    const c = client('', resolvingTo('127.0.0.1'));
    const outcome = await c.post(`http://hooks.customer.example:${port}/dlr`, '{}', {});
    c.destroy();
    expect(outcome).toEqual({ kind: 'refused', reason: 'hooks.customer.example resolves to 127.0.0.1 is a loopback address' });
    expect(received).toEqual([]);
  });

  it('refuses a name when any of its addresses is refused', async () => {
    const c = client('', resolvingTo('93.184.216.34', '10.1.2.3'));
    const outcome = await c.post(`http://mixed.example:${port}/`, '{}', {});
    c.destroy();
    expect(outcome).toMatchObject({ kind: 'refused', reason: expect.stringContaining('10.1.2.3 is a private address') });
  });

  it('allows a listed host name (and port) to resolve to a loopback address', async () => {
    const c = client(`localhost:${port}`);
    expect(await c.post(`http://localhost:${port}/`, '{}', {})).toEqual({ kind: 'success', statusCode: 204 });
    expect(await c.post(`http://127.0.0.1:${port}/`, '{}', {})).toMatchObject({ kind: 'refused' });
    c.destroy();
    expect(received).toHaveLength(1);
  });

  it('answers a URL it has seen as it did the first time, and still resolves its name on each new connection', async () => {
    const c = client('');
    for (let i = 0; i < 3; i++) expect(await c.post('http://10.0.0.1/dlr', '{}', {})).toMatchObject({ kind: 'refused' });
    c.destroy();
    // What is kept is the URL's parse and checks, never its addresses: each attempt at a name
    // resolves it again and checks the address it would connect to.
    let lookups = 0;
    const counting: Resolver = async (name) => {
      lookups++;
      return resolvingTo('127.0.0.1')(name);
    };
    const named = client('', counting);
    const url = `http://rebinding.example:${port}/dlr`;
    for (let i = 0; i < 3; i++) expect(await named.post(url, '{}', {})).toMatchObject({ kind: 'refused', reason: expect.stringContaining('resolves to 127.0.0.1') });
    named.destroy();
    expect(lookups).toBe(3);
    expect(received).toEqual([]);
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    answer = () => ({ status: 302, location: 'http://169.254.169.254/' });
    const c = client('127.0.0.1');
    const outcome = await c.post(`http://127.0.0.1:${port}/`, '{}', {});
    c.destroy();
    expect(outcome).toEqual({ kind: 'failure', statusCode: 302, timedOut: false, error: 'HTTP 302: redirects are not followed' });
    expect(received).toHaveLength(1);
  });

  it('reports a 5xx and a timeout as failures', async () => {
    const c = client('127.0.0.1', undefined, 300);
    answer = () => ({ status: 503 });
    expect(await c.post(`http://127.0.0.1:${port}/`, '{}', {})).toMatchObject({ kind: 'failure', statusCode: 503 });
    answer = () => ({ status: 200, hang: true });
    const started = Date.now();
    expect(await c.post(`http://127.0.0.1:${port}/`, '{}', {})).toEqual({ kind: 'failure', statusCode: null, timedOut: true, error: 'no answer within 300 ms' });
    expect(Date.now() - started).toBeLessThan(1500);
    c.destroy();
  });

  it('reports an answer cut off after its status as a failure with that status', async () => {
    answer = () => ({ status: 200, cut: true });
    const c = client('127.0.0.1');
    const outcome = await c.post(`http://127.0.0.1:${port}/`, '{}', {});
    c.destroy();
    expect(outcome).toEqual({ kind: 'failure', statusCode: 200, timedOut: false, error: 'answer cut off' });
  });

  it('reports an unreachable endpoint as a failure to retry', async () => {
    const c = client('127.0.0.1');
    const outcome = await c.post('http://127.0.0.1:9/', '{}', {});
    c.destroy();
    expect(outcome).toMatchObject({ kind: 'failure', statusCode: null, timedOut: false, error: expect.stringContaining('ECONNREFUSED') });
  });
});
