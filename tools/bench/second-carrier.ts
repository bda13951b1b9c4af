// Simulators a benchmark starts beside the stack's own: Kannel's carrier, and the platform's second
// carrier `bench-b` for the failover runs of `npm run bench:e2e`.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort, stackProcess } from '@seed/platform-testing';
import { json } from './bench-support';

export interface BenchSimulator {
  port: number;
  inspectionUrl: string;
  child: ChildProcess;
}

/** A simulator process with the stack's defaults, on free ports. */
export async function startBenchSimulator(root: string): Promise<BenchSimulator> {
  const [port, httpPort] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, [join(root, stackProcess('smsc-simulator').main)], {
    env: { PATH: process.env['PATH'] ?? '', SMSC_PORT: String(port), SMSC_HTTP_PORT: String(httpPort), SMSC_HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  for (let i = 0; i < 100; i++) {
    const ok = await fetch(`http://127.0.0.1:${httpPort}/health/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { port, inspectionUrl: `http://127.0.0.1:${httpPort}`, child };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error('the bench simulator did not start');
}

/** The platform's second carrier in failover runs. */
export interface SecondCarrier {
  inspectionUrl: string;
  child: ChildProcess;
}

export interface AdminAccess {
  adminUrl: string;
  adminToken: string;
}

const SECOND_CARRIER_ID = 'bench-b';

/** Starts a simulator and registers it as carrier `bench-b` through the admin API; resolves once it is bound. */
export async function addSecondCarrier(root: string, admin: AdminAccess, window: number): Promise<SecondCarrier> {
  const sim = await startBenchSimulator(root);
  await json(`${admin.adminUrl}/admin/v1/carriers/${SECOND_CARRIER_ID}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${admin.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: `smpp://seed:secret@127.0.0.1:${sim.port}`, binds: 1, window }),
  });
  await untilBound(sim.inspectionUrl);
  return { inspectionUrl: sim.inspectionUrl, child: sim.child };
}

export async function removeSecondCarrier(admin: AdminAccess, second: SecondCarrier): Promise<void> {
  await fetch(`${admin.adminUrl}/admin/v1/carriers/${SECOND_CARRIER_ID}`, { method: 'DELETE', headers: { authorization: `Bearer ${admin.adminToken}` } }).catch(() => undefined);
  second.child.kill('SIGTERM');
}

/** Waits until a simulator accepted `atLeast` messages, then drops its sessions and refuses binds for `downMs`; returns when it dropped them. */
export async function dropCarrierWhenAt(inspectionUrl: string, atLeast: number, downMs: number): Promise<number> {
  while ((await json<{ accepted: number }>(`${inspectionUrl}/stats`)).accepted < atLeast) await new Promise((r) => setTimeout(r, 10));
  const droppedAt = Date.now();
  const res = await fetch(`${inspectionUrl}/sessions/drop?refuseBindsMs=${downMs}`, { method: 'POST' });
  if (!res.ok) throw new Error(`dropping the carrier's sessions answered ${res.status}`);
  return droppedAt;
}

/** What a simulator received, oldest first. */
export const storedAt = async (inspectionUrl: string): Promise<{ receivedAt: string }[]> =>
  (await json<{ messages: { receivedAt: string }[] }>(`${inspectionUrl}/messages?limit=100000`)).messages;

/** Waits (up to a minute) until a simulator has a bound session. */
export async function untilBound(inspectionUrl: string): Promise<void> {
  for (let i = 0; i < 600 && (await json<{ boundSessions: number }>(`${inspectionUrl}/stats`)).boundSessions < 1; i++) await new Promise((r) => setTimeout(r, 100));
}
