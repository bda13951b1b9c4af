import { once } from 'node:events';
import { eventually, testLogger } from '@seed/platform-testing';
import { startSimulator } from '../sms-batch.test-helpers';
import { SmppCarrier } from './smpp-carrier';

/*
 * One session against the real simulator, stopped in the states a shutdown meets it in.
 */

function sessionTo(smppPort: number): SmppCarrier {
  const settings = { carrierId: 'a', url: `smpp://seed:secret@127.0.0.1:${smppPort}`, window: 10, enquireLinkMs: 30_000, responseTimeoutMs: 2000, reconnectMaxMs: 60_000 };
  return new SmppCarrier(settings, testLogger(), () => Promise.resolve());
}

describe('SmppCarrier stop', () => {
  it('unbinds and closes a bound session', async () => {
    const sim = await startSimulator();
    try {
      const carrier = sessionTo(sim.smppPort);
      carrier.start();
      await eventually(async () => carrier.isBound() || undefined, 10_000, 20);
      await carrier.stop();
      expect(carrier.isBound()).toBe(false);
      const stats = (await (await fetch(`http://127.0.0.1:${sim.httpPort}/stats`)).json()) as { boundSessions: number };
      expect(stats.boundSessions).toBe(0);
    } finally {
      sim.process.kill('SIGTERM');
    }
  });

  it('returns at once when the connection is already gone and a reconnect is waiting', async () => {
    const sim = await startSimulator();
    const carrier = sessionTo(sim.smppPort);
    carrier.start();
    await eventually(async () => carrier.isBound() || undefined, 10_000, 20);
    // The carrier goes away: the session closes and a reconnect is scheduled (refused until stop).
    sim.process.kill('SIGKILL');
    await once(sim.process, 'exit');
    await eventually(async () => !carrier.isBound() || undefined, 5000, 20);

    const started = Date.now();
    await carrier.stop();
    // It used to wait for a 'close' event the closed session had already emitted, for ever.
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
