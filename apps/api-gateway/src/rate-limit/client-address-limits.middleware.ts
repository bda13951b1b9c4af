import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { Counter } from 'prom-client';
import { ApiErrorCode } from '@seed/contracts';
import { ApiError } from '../http/api-error';
import { closeUnreadBody, hasBody } from '../http/json-body.middleware';
import { sendApiError } from '../http/send-api-error';
import { ClientAddressLimiter } from './client-address-limiter';

const refused = new Counter({
  name: 'gateway_client_address_limited_requests_total',
  help: 'Unauthenticated requests (agent login, guest page) refused with 429 because their client address was over its rate',
  labelNames: ['endpoint'],
});

export interface ClientAddressLimitSettings {
  loginPerMinute: number;
  loginBurst: number;
  guestPagePerMinute: number;
  guestPageBurst: number;
}

type Endpoint = 'agent_login' | 'guest_page';

function endpointOf(req: Request): Endpoint | undefined {
  if (req.method === 'POST' && /^\/api\/v1\/sessions\/?$/i.test(req.path)) return 'agent_login';
  if ((req.method === 'GET' || req.method === 'HEAD') && /^\/guest\/[^/]+\/?$/i.test(req.path)) return 'guest_page';
  return undefined;
}

/**
 * Per client address (the TCP peer's: no proxy is trusted to name the client), a token bucket for the agent API's two entry points that no API key guards:
 * `POST /api/v1/sessions` and `GET /guest/{token}`. Over it: 429 in the contract's error shape with
 * `Retry-After`, before the body is read and before agent-token is asked. In memory, per replica.
 */
export function clientAddressLimits(settings: ClientAddressLimitSettings, logger: Logger): RequestHandler {
  const limiters: Record<Endpoint, ClientAddressLimiter> = {
    agent_login: new ClientAddressLimiter({ perMinute: settings.loginPerMinute, burst: settings.loginBurst }),
    guest_page: new ClientAddressLimiter({ perMinute: settings.guestPagePerMinute, burst: settings.guestPageBurst }),
  };
  const perMinute: Record<Endpoint, number> = { agent_login: settings.loginPerMinute, guest_page: settings.guestPagePerMinute };
  setInterval(() => {
    for (const limiter of Object.values(limiters)) limiter.prune(Date.now());
  }, 60_000).unref();
  return (req: Request, res: Response, next: NextFunction) => {
    const endpoint = endpointOf(req);
    if (!endpoint) return next();
    const address = req.socket.remoteAddress ?? 'unknown';
    const admission = limiters[endpoint].admit(address, Date.now());
    if (admission.admitted) return next();
    refused.inc({ endpoint });
    if (hasBody(req)) closeUnreadBody(req, res);
    const message = `too many requests from this address: limited to ${perMinute[endpoint]} a minute`;
    sendApiError(res, new ApiError(429, ApiErrorCode.TooManyRequests, message, admission.retryAfterSeconds), logger);
  };
}
