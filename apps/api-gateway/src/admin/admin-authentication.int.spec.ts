import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import express from 'express';
import pino from 'pino';
import type { Request } from 'express';
import type { GatewayConfig } from '../gateway.config';
import { ApiError } from '../http/api-error';
import { HttpListeners } from '../http/http-listeners';
import { AdminTokenGuard, adminAuthentication } from './admin-token.guard';

const ADMIN = randomBytes(24).toString('hex');

/** Sends headers that announce a body and never sends it: only an answer that reads no body returns. */
function withoutBody(port: number, path: string, token?: string): Promise<{ status: number; retryAfter?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '1000000', ...(token ? { authorization: `Bearer ${token}` } : {}) } });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined, body });
      });
    });
    req.on('error', reject);
    req.flushHeaders();
  });
}

describe('the admin listener', () => {
  const listeners = new HttpListeners();
  let ports: Record<'messaging' | 'agent' | 'admin', number>;
  let bodiesRead = 0;

  beforeAll(async () => {
    const guard = new AdminTokenGuard({ ADMIN_TOKEN: ADMIN, METRICS_TOKEN: '', ADMIN_AUTH_FAILURES_PER_MINUTE: 3 } as GatewayConfig);
    const app = express();
    app.use(adminAuthentication(guard, pino({ level: 'silent' })));
    app.use((req, res) => {
      bodiesRead++;
      req.resume();
      req.on('end', () => res.json({ ok: true }));
    });
    ports = await listeners.open({ messaging: '0.0.0.0', agent: '0.0.0.0', admin: '127.0.0.1' }, { messaging: 0, agent: 0, admin: 0 });
    listeners.serve(app);
  });
  afterAll(() => listeners.close());

  it('binds each listener to its own interface: the admin one to loopback here', () => {
    const addresses = (listeners as unknown as { listeners: Map<string, { server: import('node:http').Server }> }).listeners;
    const bound = (name: string) => (addresses.get(name)?.server.address() as { address: string }).address;
    expect(bound('admin')).toBe('127.0.0.1');
    expect(bound('messaging')).toBe('0.0.0.0');
  });

  it('refuses the admin API and /metrics without the token before reading a body, then limits the address', async () => {
    expect(await withoutBody(ports.admin, '/admin/v1/accounts')).toMatchObject({ status: 401 });
    expect(await withoutBody(ports.admin, '/metrics', 'not-the-token')).toMatchObject({ status: 401 });
    expect(await withoutBody(ports.admin, '/admin/v1/accounts', 'wrong')).toMatchObject({ status: 401 });
    const limited = await withoutBody(ports.admin, '/admin/v1/accounts', ADMIN);
    expect(limited).toMatchObject({ status: 429, retryAfter: '60' });
    expect(JSON.parse(limited.body)).toMatchObject({ code: 1600, message: expect.stringMatching(/too many failed admin authentications/) });
    expect(bodiesRead).toBe(0);
  });

  it('leaves the other listeners to their own authentication', async () => {
    const res = await fetch(`http://127.0.0.1:${ports.messaging}/admin/v1/accounts`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(200);
    expect(bodiesRead).toBe(1);
  });
});

describe('the admin listener while the gateway starts', () => {
  const listeners = new HttpListeners();
  let ports: Record<'messaging' | 'agent' | 'admin', number>;

  beforeAll(async () => {
    const guard = new AdminTokenGuard({ ADMIN_TOKEN: ADMIN, METRICS_TOKEN: '', ADMIN_AUTH_FAILURES_PER_MINUTE: 10 } as GatewayConfig);
    const authorize = (req: import('node:http').IncomingMessage) => {
      try {
        guard.authenticate(req as Request, 'metrics');
        return null;
      } catch (error) {
        return error as ApiError;
      }
    };
    ports = await listeners.open('127.0.0.1', { messaging: 0, agent: 0, admin: 0 }, authorize);
  });
  afterAll(() => listeners.close());

  it('serves /metrics to the token only, on the admin listener only; probes as before', async () => {
    const admin = `http://127.0.0.1:${ports.admin}`;
    expect((await fetch(`${admin}/metrics`)).status).toBe(401);
    const scraped = await fetch(`${admin}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain('process_cpu_seconds_total');
    expect((await fetch(`http://127.0.0.1:${ports.messaging}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })).status).toBe(503);
    expect((await fetch(`${admin}/health/live`)).status).toBe(200);
    expect((await fetch(`${admin}/health/ready`)).status).toBe(503);
    expect((await fetch(`${admin}/admin/v1/accounts`, { headers: { authorization: `Bearer ${ADMIN}` } })).status).toBe(503);
  });
});
