import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { register } from 'prom-client';
import { httpServerMetrics } from './http-server.metrics';

describe('httpServerMetrics', () => {
  it('labels requests by listener, route template, method and status class, never by the URL', async () => {
    const app = express();
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    app.use(httpServerMetrics({ messaging: port, agent: port + 1, admin: port + 2 }));
    app.post('/sms/v1/:subAccountId/many', (_req, res) => void res.status(200).json({ ok: true }));
    app.get('/verify/v2/:subAccountId/:uid', (_req, res) => void res.status(503).end());
    try {
      const base = `http://127.0.0.1:${port}`;
      expect((await fetch(`${base}/sms/v1/sub-one/many`, { method: 'POST' })).status).toBe(200);
      expect((await fetch(`${base}/sms/v1/sub-two/many`, { method: 'POST' })).status).toBe(200);
      expect((await fetch(`${base}/verify/v2/sub-one/abc`)).status).toBe(503);
      expect((await fetch(`${base}/no/such/path/42`)).status).toBe(404);
      // The close event of the last response may come just after the client has read it.
      await new Promise((resolve) => setTimeout(resolve, 50));

      const text = await register.getSingleMetricAsString('http_server_request_duration_seconds');
      const count = (labels: string) => Number(new RegExp(`_count\\{${labels}\\} (\\d+)`).exec(text)?.[1] ?? 0);
      expect(count('listener="messaging",route="/sms/v1/:subAccountId/many",method="POST",status_class="2xx"')).toBe(2);
      expect(count('listener="messaging",route="/verify/v2/:subAccountId/:uid",method="GET",status_class="5xx"')).toBe(1);
      expect(count('listener="messaging",route="none",method="GET",status_class="4xx"')).toBe(1);
      expect(text).not.toContain('sub-one');
      expect(text).not.toContain('/no/such/path');
    } finally {
      server.close();
    }
  });
});
