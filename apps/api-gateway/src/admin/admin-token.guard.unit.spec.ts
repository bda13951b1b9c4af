import { randomBytes } from 'node:crypto';
import type { Request } from 'express';
import type { GatewayConfig } from '../gateway.config';
import { ApiError } from '../http/api-error';
import { AdminTokenGuard } from './admin-token.guard';
import { FailedAuthLimiter } from './failed-auth-limiter';

const ADMIN = randomBytes(24).toString('hex');
const METRICS = randomBytes(24).toString('hex');

function request(token: string | null, address = '10.0.0.1'): Request {
  return { headers: token === null ? {} : { authorization: `Bearer ${token}` }, socket: { remoteAddress: address } } as unknown as Request;
}

function outcome(guard: AdminTokenGuard, req: Request, scope: 'admin' | 'metrics' = 'admin'): number | string {
  try {
    guard.authenticate(req, scope);
    return 'ok';
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return error.status === 429 ? `429 after ${error.retryAfterSeconds}s (${error.code})` : error.status;
  }
}

describe('AdminTokenGuard', () => {
  let now = 0;
  const guard = (metricsToken = '') =>
    new AdminTokenGuard({ ADMIN_TOKEN: ADMIN, METRICS_TOKEN: metricsToken, ADMIN_AUTH_FAILURES_PER_MINUTE: 10 } as GatewayConfig, new FailedAuthLimiter(10, 60_000, () => now));
  beforeEach(() => (now = 0));

  it('admits the admin token; METRICS_TOKEN opens /metrics only', () => {
    const g = guard(METRICS);
    expect(outcome(g, request(ADMIN))).toBe('ok');
    expect(outcome(g, request(ADMIN), 'metrics')).toBe('ok');
    expect(outcome(g, request(METRICS), 'metrics')).toBe('ok');
    expect(outcome(g, request(METRICS))).toBe(401);
    expect(outcome(guard(), request(METRICS), 'metrics')).toBe(401);
    expect(outcome(g, request(null))).toBe(401);
  });

  it('answers 429 with Retry-After (code 1600) to an address past 10 failures a minute, right token or not; others unaffected', () => {
    const g = guard();
    for (let i = 0; i < 10; i++) expect(outcome(g, request(`wrong-${i}`))).toBe(401);
    expect(outcome(g, request('wrong'))).toBe('429 after 60s (1600)');
    expect(outcome(g, request(ADMIN))).toBe('429 after 60s (1600)');
    expect(outcome(g, request(ADMIN, '10.0.0.2'))).toBe('ok');
    now = 60_001;
    expect(outcome(g, request(ADMIN))).toBe('ok');
  });

  it('does not count successes', () => {
    const g = guard();
    for (let i = 0; i < 50; i++) expect(outcome(g, request(ADMIN))).toBe('ok');
    for (let i = 0; i < 9; i++) expect(outcome(g, request(null))).toBe(401);
    expect(outcome(g, request(ADMIN))).toBe('ok');
    expect(g.admits(request(null), null)).toBe(false); // the docs' check counts too: the tenth failure
    expect(g.admits(request(ADMIN), ADMIN)).toBe(false);
  });
});
