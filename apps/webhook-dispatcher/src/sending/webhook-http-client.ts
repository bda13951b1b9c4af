import { Agent } from 'undici';
import { inSpan, onwardTraceparent, SpanKind } from '@seed/platform-telemetry';
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
 * POSTs one webhook and says how it went. undici's keep-alive agents (one TLS handshake per
 * connection, not per request): per request it costs this process about half of node:http's CPU
 * (40-80 against 100-120 µs on this project's machine, 32 at a time to a local receiver), and a
 * webhook is the dispatcher's unit of work. The whole exchange must end within the timeout;
 * redirects are not followed (a 3xx is a failed attempt, so a redirect cannot lead past the
 * address check); every new connection's address is checked unless the URL's host[:port] is an
 * operator exception.
 */
export class WebhookHttpClient {
  /** Connections whose addresses are checked, and the operator's exceptions (not checked). */
  private readonly guarded: Agent;
  private readonly unguarded: Agent;

  constructor(private readonly options: HttpClientOptions) {
    // undici's own timeouts only back up the request's (the AbortSignal below), which must win: a
    // timeout is reported as one.
    const backstopMs = options.timeoutMs + 1000;
    const agentOptions = { connections: options.socketsPerEndpoint, headersTimeout: backstopMs, bodyTimeout: backstopMs };
    // The socket connects to what the lookup returns: no gap between check and connect for DNS rebinding.
    this.guarded = new Agent({ ...agentOptions, connect: { lookup: guardedLookup(options.resolver ?? systemResolver) } });
    this.unguarded = new Agent(agentOptions);
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
      // A literal address is connected to without a lookup: it is checked here.
      const refusal = refusalOfAddress(target.hostname);
      if (refusal) return { kind: 'refused', reason: refusal };
    }
    const agent = allowed ? this.unguarded : this.guarded;
    // The HTTP request's own span (what node:http's instrumentation made before): its traceparent
    // goes to the receiver, as any traced HTTP client's would.
    const attributes = { 'http.request.method': 'POST', 'server.address': target.hostname, 'server.port': port };
    return timedAttempt(
      inSpan('POST', { kind: SpanKind.CLIENT, attributes }, async (span) => {
        const traceparent = onwardTraceparent(null); // null when tracing is off
        const outcome = await this.send(target, agent, body, traceparent ? { ...headers, traceparent } : headers);
        if (outcome.kind !== 'refused' && outcome.statusCode !== null) span?.setAttribute('http.response.status_code', outcome.statusCode);
        return outcome;
      }),
    );
  }

  destroy(): void {
    void this.guarded.destroy().catch(() => undefined);
    void this.unguarded.destroy().catch(() => undefined);
  }

  private async send(target: URL, agent: Agent, body: string, headers: Record<string, string>): Promise<AttemptOutcome> {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), this.options.timeoutMs);
    let status: number | null = null;
    try {
      const response = await agent.request({
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'seed-webhooks/1' },
        body,
        signal: abort.signal,
      });
      status = response.statusCode;
      // The answer counts once complete: read to its end (its content is not used; an error on the
      // way fails the attempt, where `dump()` would not say) so the connection is reused.
      for await (const _chunk of response.body) {
        // discarded
      }
      if (status >= 200 && status < 300) return { kind: 'success', statusCode: status };
      if (status >= 300 && status < 400) return { kind: 'failure', statusCode: status, timedOut: false, error: `HTTP ${status}: redirects are not followed` };
      return { kind: 'failure', statusCode: status, timedOut: false, error: `HTTP ${status}` };
    } catch (error) {
      if (abort.signal.aborted) return { kind: 'failure', statusCode: null, timedOut: true, error: `no answer within ${this.options.timeoutMs} ms` };
      if (status !== null) return { kind: 'failure', statusCode: status, timedOut: false, error: 'answer cut off' };
      const refused = refusalIn(error);
      if (refused) return { kind: 'refused', reason: refused.message };
      const e = error as NodeJS.ErrnoException;
      return { kind: 'failure', statusCode: null, timedOut: false, error: `${e.code ?? e.name}: ${e.message}`.slice(0, 500) };
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The address guard's refusal, as thrown by the lookup or wrapped by undici. */
function refusalIn(error: unknown): TargetRefusedError | null {
  for (let e = error, depth = 0; e && depth < 3; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof TargetRefusedError) return e;
  }
  return null;
}
