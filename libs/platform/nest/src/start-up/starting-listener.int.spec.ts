import { StartingListener } from './starting-listener';

describe('StartingListener', () => {
  const listener = new StartingListener();
  let base: string;

  beforeAll(async () => {
    base = `http://127.0.0.1:${await listener.listen(0, '127.0.0.1')}`;
  });

  afterAll(() => listener.close());

  it('while starting: alive, not ready, metrics served, anything else 503', async () => {
    expect((await fetch(`${base}/health/live`)).status).toBe(200);
    const ready = await fetch(`${base}/health/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'starting' });
    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('process_cpu_user_seconds_total');
    expect((await fetch(`${base}/anything`)).status).toBe(503);
  });

  it('once started: the same socket serves the application, keep-alive connections included', async () => {
    listener.serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('application');
    });
    const res = await fetch(`${base}/health/ready`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('application');
  });
});
