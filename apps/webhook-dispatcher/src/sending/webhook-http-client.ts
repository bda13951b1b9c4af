import { EventEmitter } from 'node:events';
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
 * (docs/adr/0031-webhooks-posted-with-undici.md), and a webhook is the dispatcher's unit of work. The whole exchange must end within the timeout;
 * redirects are not followed (a 3xx is a failed attempt, so a redirect cannot lead past the
 * address check); every new connection's address is checked unless the URL's host[:port] is an
 * operator exception.
 */
export class WebhookHttpClient {
  /** Connections whose addresses are checked, and the operator's exceptions (not checked). */
  private readonly guarded: Agent;
  private readonly unguarded: Agent;
  private readonly targets = new Map<string, Target | { refused: string }>();

  constructor(private readonly options: HttpClientOptions) {
    // undici's own timeouts only back up the request's (the deadline below), which must win: a
    // timeout is reported as one.
    const backstopMs = options.timeoutMs + 1000;
    const agentOptions = { connections: options.socketsPerEndpoint, headersTimeout: backstopMs, bodyTimeout: backstopMs };
    // The socket connects to what the lookup returns: no gap between check and connect for DNS rebinding.
    this.guarded = new Agent({ ...agentOptions, connect: { lookup: guardedLookup(options.resolver ?? systemResolver) } });
    this.unguarded = new Agent(agentOptions);
  }

  async post(url: string, body: string, headers: Record<string, string>): Promise<AttemptOutcome> {
    const target = this.targetOf(url);
    if ('refused' in target) return { kind: 'refused', reason: target.refused };
    // The HTTP request's own span (what node:http's instrumentation made before): its traceparent
    // goes to the receiver, as any traced HTTP client's would.
    const attributes = { 'http.request.method': 'POST', 'server.address': target.hostname, 'server.port': target.port };
    return timedAttempt(
      inSpan('POST', { kind: SpanKind.CLIENT, attributes }, async (span) => {
        const traceparent = onwardTraceparent(null); // null when tracing is off
        const outcome = await this.send(target, body, traceparent ? { ...headers, traceparent } : headers);
        if (outcome.kind !== 'refused' && outcome.statusCode !== null) span?.setAttribute('http.response.status_code', outcome.statusCode);
        return outcome;
      }),
    );
  }

  destroy(): void {
    void this.guarded.destroy().catch(() => undefined);
    void this.unguarded.destroy().catch(() => undefined);
  }

  /**
   * What a URL is to this client: parsed, checked against the allowed hosts and, for a literal
   * address, against the internal ranges. A customer's callback URL is the same for each of its
   * webhooks, so the answer is kept (per client; a changed URL is a new key): parsing and the
   * address checks showed in the dispatcher's profile per webhook (docs/adr/0031-webhooks-posted-with-undici.md). Names are still resolved and
   * checked on every new connection (`guardedLookup`), never here.
   */
  private targetOf(url: string): Target | { refused: string } {
    const known = this.targets.get(url);
    if (known) return known;
    const target = parseTarget(url, this.options.allowedHosts, this.guarded, this.unguarded);
    if (this.targets.size >= MAX_TARGETS) this.targets.clear();
    this.targets.set(url, target);
    return target;
  }

  private async send(target: Target, body: string, headers: Record<string, string>): Promise<AttemptOutcome> {
    // undici takes an EventEmitter as a request's `signal` as well as an AbortSignal; per request it
    // costs a fraction of an AbortController, whose creation showed in the dispatcher's profile
    // (docs/adr/0031-webhooks-posted-with-undici.md).
    const deadline = new EventEmitter();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      deadline.emit('abort');
    }, this.options.timeoutMs);
    let status: number | null = null;
    try {
      const response = await target.agent.request({
        origin: target.origin,
        path: target.path,
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'seed-webhooks/1' },
        body,
        signal: deadline,
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
      if (timedOut) return { kind: 'failure', statusCode: null, timedOut: true, error: `no answer within ${this.options.timeoutMs} ms` };
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

/** Where a webhook URL's requests go, and through which agent. */
interface Target {
  origin: string;
  path: string;
  hostname: string;
  port: number;
  agent: Agent;
}

/** Distinct URLs remembered per client; past it the memory starts again. */
const MAX_TARGETS = 10_000;

function parseTarget(url: string, allowedHosts: readonly AllowedHost[], guarded: Agent, unguarded: Agent): Target | { refused: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { refused: 'not a valid URL' };
  }
  const secure = parsed.protocol === 'https:';
  if (!secure && parsed.protocol !== 'http:') return { refused: `scheme ${parsed.protocol} is not allowed` };
  const port = Number(parsed.port || (secure ? 443 : 80));
  const allowed = isAllowedHost(allowedHosts, parsed.hostname, port);
  if (!allowed && isIpLiteral(parsed.hostname)) {
    // A literal address is connected to without a lookup: it is checked here.
    const refusal = refusalOfAddress(parsed.hostname);
    if (refusal) return { refused: refusal };
  }
  return { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}`, hostname: parsed.hostname, port, agent: allowed ? unguarded : guarded };
}

/** The address guard's refusal, as thrown by the lookup or wrapped by undici. */
function refusalIn(error: unknown): TargetRefusedError | null {
  for (let e = error, depth = 0; e && depth < 3; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof TargetRefusedError) return e;
  }
  return null;
}
