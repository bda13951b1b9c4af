import { eventually, type RunningStack } from '@seed/platform-testing';
import { request } from './http';
import { smsc } from './smsc';

/** Thin client of the carriers and routes admin API (`/admin/v1/carriers`, `/admin/v1/routes`). */
export function routing(stack: RunningStack) {
  const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const res = await request(`${stack.adminUrl}/admin/v1${path}`, { token: stack.adminToken, method, ...(body === undefined ? {} : { body }) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
    return text ? (JSON.parse(text) as unknown) : undefined;
  };
  return {
    putCarrier: (carrierId: string, body: Record<string, unknown>) => call('PUT', `/carriers/${carrierId}`, body),
    removeCarrier: (carrierId: string) => call('DELETE', `/carriers/${carrierId}`),
    putRoute: (routeId: string, body: Record<string, unknown>) => call('PUT', `/routes/${routeId}`, body),
    removeRoute: (routeId: string) => call('DELETE', `/routes/${routeId}`),
    listRoutes: async () => ((await call('GET', '/routes')) as { routes: { routeId: string }[] }).routes,
    /** Removes every route: the table is back to the implicit catch-all. */
    async clearRoutes(): Promise<void> {
      for (const route of await this.listRoutes()) await this.removeRoute(route.routeId);
    },
  };
}

/**
 * The second simulator of a stack started with `SMSC_INSTANCES=2` and an `SMSC_PORT_STEP` that keeps
 * it in the block of ports the harness checked (2: base+5 and +6; 5 beside a second gateway: +8 and +9).
 */
export function secondSimulator(stack: RunningStack): { smppUrl: string; httpUrl: string } {
  const step = Number(stack.env['SMSC_PORT_STEP']);
  const smppPort = Number(stack.env['SMSC_PORT']) + step;
  const httpPort = Number(stack.env['SMSC_HTTP_PORT']) + step;
  return { smppUrl: `smpp://seed:secret@127.0.0.1:${smppPort}`, httpUrl: `http://127.0.0.1:${httpPort}` };
}

/** Waits until a simulator has `sessions` bound sessions (the platform picked up a carrier change). */
export async function untilBound(httpUrl: string, sessions = 1, timeoutMs = 15_000): Promise<void> {
  await eventually(async () => ((await smsc(httpUrl).stats()).boundSessions >= sessions ? true : undefined), timeoutMs, 100);
}

/** A German mobile number in E.164 digits, distinct for each n < 100,000,000. */
export function germanMobile(n: number): string {
  return `49151${String(n).padStart(8, '0')}`;
}

/** The most of `times` (milliseconds, sorted) that fall within any window of `windowMs`: a cap's test over the busiest stretch. */
export function busiestWindow(times: readonly number[], windowMs: number): number {
  let busiest = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while ((times[i] as number) - (times[j] as number) >= windowMs) j++;
    busiest = Math.max(busiest, i - j + 1);
  }
  return busiest;
}
