import { GatewayConfig } from '../gateway.config';
import { GatewayModule } from '../gateway.module';
import { apiKeyRoutes, matchKeyRoute } from './api-key-first.middleware';

/** The gateway's own controllers, as main.ts hands them to the middleware. */
const controllers = GatewayModule.register(new GatewayConfig(), undefined as never).controllers ?? [];
const routes = apiKeyRoutes(controllers);

describe('apiKeyRoutes / matchKeyRoute', () => {
  it.each([
    ['POST', '/sms/v1/acme_hq/many', 'acme_hq'],
    ['POST', '/sms/v1/acme_hq/many/compact', 'acme_hq'],
    ['GET', '/sms/v1/acme_hq/messages/3f2b', 'acme_hq'],
    ['HEAD', '/sms/v1/acme_hq/batches/3f2b', 'acme_hq'],
    ['POST', '/api/v1/subaccounts/acme_eu/messages', 'acme_eu'],
    ['POST', '/api/v1/subaccounts/acme_eu/messages/batch/', 'acme_eu'],
    ['GET', '/api/v1/subaccounts/a%20b/messages/u1', 'a b'],
    ['POST', '/verify/v2/acme_hq', 'acme_hq'],
    ['GET', '/VERIFY/v2/acme_hq/uid-1', 'acme_hq'],
    ['POST', '/api/v1/tokens', null],
  ])('%s %s is behind the API key, for sub-account %s', (method, path, subAccountId) => {
    expect(matchKeyRoute(routes, method, path)).toEqual({ subAccountId });
  });

  it.each([
    ['POST', '/api/v1/sessions'],
    ['GET', '/guest/abc'],
    ['POST', '/admin/v1/accounts'],
    ['GET', '/health/ready'],
    ['POST', '/sms/v1/acme_hq/unknown'],
    ['POST', '/sms/v1//many'],
    ['POST', '/sms/v1/%E0%A4%A/many'],
    ['DELETE', '/api/v1/tokens'],
  ])('%s %s is not (no key asked before the body)', (method, path) => {
    expect(matchKeyRoute(routes, method, path)).toBeUndefined();
  });
});
