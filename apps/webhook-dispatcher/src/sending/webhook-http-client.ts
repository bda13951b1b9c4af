import http from 'node:http';
import https from 'node:https';
import type { AttemptOutcome } from '@seed/webhook-dispatcher-domain';
import { isAllowedHost, isIpLiteral, refusalOfAddress, type AllowedHost } from '@seed/webhook-dispatcher-domain';
import { guardedLookup, systemResolver, TargetRefusedError, type Resolver } from './guarded-lookup';
import { timedAttempt } from './webhook-attempt.metrics';

export interface HttpClientOptions {
  timeoutMs: number;
  allowedHosts: readonly AllowedHost[];
  /** Sockets kept per endpoint; the sender never has more requests in flight to one. */
  socketsPerEndpoint: number;
  resolver?: Resolver;
}

/**
 * POSTs one webhook and says how it went. Keep-alive agents (one TLS handshake per connection, not
 * per request); the whole exchange must end within the timeout; redirects are not followed (a 3xx
 * is a failed attempt, so a redirect cannot lead past the address check); every new connection's
 * address is checked unless the URL's host[:port] is an operator exception.
 */
export class WebhookHttpClient {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;
  private readonly lookup;

  constructor(private readonly options: HttpClientOptions) {
    const agentOptions = { keepAlive: true, maxSockets: options.socketsPerEndpoint, maxFreeSockets: options.socketsPerEndpoint, scheduling: 'lifo' as const };
    this.httpAgent = new http.Agent(agentOptions);
    this.httpsAgent = new https.Agent(agentOptions);
    this.lookup = guardedLookup(options.resolver ?? systemResolver);
  }

  async post(url: string, body: string, headers: Record<string, string>): Promise<AttemptOutcome> {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return { kind: 'refused', reason: 'not a valid URL' };
    }
    const secure = target.protocol === 'https:';
    if (!secure && target.protocol !== 'http:') return { kind: 'refused', reason: `scheme ${target.protocol} is not allowed` };
    const port = Number(target.port || (secure ? 443 : 80));
    const allowed = isAllowedHost(this.options.allowedHosts, target.hostname, port);
    if (!allowed && isIpLiteral(target.hostname)) {
      // Node connects to a literal address without calling `lookup`: it is checked here.
      const refusal = refusalOfAddress(target.hostname);
      if (refusal) return { kind: 'refused', reason: refusal };
    }
    return timedAttempt(this.send(target, secure, allowed, body, headers));
  }

  destroy(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  private send(target: URL, secure: boolean, allowed: boolean, body: string, headers: Record<string, string>): Promise<AttemptOutcome> {
    const payload = Buffer.from(body, 'utf8');
    return new Promise<AttemptOutcome>((resolve) => {
      let settled = false;
      const settle = (outcome: AttemptOutcome): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(outcome);
      };
      const request = (secure ? https : http).request(
        target,
        {
          method: 'POST',
          agent: secure ? this.httpsAgent : this.httpAgent,
          headers: { ...headers, 'content-type': 'application/json', 'content-length': String(payload.length), 'user-agent': 'seed-webhooks/1' },
          ...(allowed ? {} : { lookup: this.lookup }),
        },
        (response) => {
          const status = response.statusCode ?? 0;
          // The answer counts once complete: drain it (its content is not used) so the socket can be reused.
          response.on('error', () => settle({ kind: 'failure', statusCode: status, timedOut: false, error: 'answer cut off' }));
          response.on('end', () => {
            if (status >= 200 && status < 300) settle({ kind: 'success', statusCode: status });
            else if (status >= 300 && status < 400) {
              settle({ kind: 'failure', statusCode: status, timedOut: false, error: `HTTP ${status}: redirects are not followed` });
            } else settle({ kind: 'failure', statusCode: status, timedOut: false, error: `HTTP ${status}` });
          });
          response.resume();
        },
      );
      const timer = setTimeout(() => {
        settle({ kind: 'failure', statusCode: null, timedOut: true, error: `no answer within ${this.options.timeoutMs} ms` });
        request.destroy();
      }, this.options.timeoutMs);
      request.on('error', (error: NodeJS.ErrnoException) => {
        if (error instanceof TargetRefusedError) settle({ kind: 'refused', reason: error.message });
        else settle({ kind: 'failure', statusCode: null, timedOut: false, error: `${error.code ?? error.name}: ${error.message}`.slice(0, 500) });
      });
      request.end(payload);
    });
  }
}
