import type { RunningStack } from '@seed/platform-testing';
import { randomUUID } from 'node:crypto';
import { request, ukMobile, type Account } from './http';
import { postVerification } from './verify';

/** One request of the load and how it was answered. */
export interface Outcome {
  kind: 'batch' | 'verify';
  startedAt: number;
  endedAt: number;
  /** 0: no answer within the client's 30 s timeout (what a typical client gives up after). */
  status: number;
  retryAfter: string | null;
  code: number | undefined;
  /** Destinations the request asked to send to (one per message, normalised digits). */
  destinations: string[];
  /** Message ids of an accepted batch. */
  umids: string[];
  /** A batch's Idempotency-Key and body: a retry sends both again. */
  idempotencyKey?: string;
  body?: unknown;
  /** The answer was an earlier request's with the same key (`Idempotent-Replayed: true`). */
  replayed: boolean;
}

const CLIENT_TIMEOUT_MS = 30_000;
const BATCH_SIZE = 5;
/** Requests of one kind in flight at once, at most. */
const MAX_IN_FLIGHT = 20;

/**
 * A steady stream of small batches and Verify generations, each to destinations of its own, as
 * clients send them while a dependency goes down and comes back. Every answer is recorded with its
 * timing; nothing is retried meanwhile, so what reaches the carrier can be matched to what was
 * accepted. Batches go to the current API generation with an Idempotency-Key each, so that a
 * client's retry of a 503 (`retryRefusedBatches`) can be shown to send nothing twice.
 * Requests start at a steady pace whether or not earlier ones were answered, as many independent
 * clients send them: a request caught in flight by the outage (answered only once it is over)
 * must not hold back the ones that find the outage known.
 */
export class OutageLoad {
  readonly outcomes: Outcome[] = [];
  private running = false;
  private loops: Promise<void>[] = [];
  private next: number;

  constructor(
    private readonly stack: RunningStack,
    private readonly account: Account,
    firstNumber: number,
    private readonly pauseMs = 100,
  ) {
    this.next = firstNumber;
  }

  start(): void {
    this.running = true;
    this.loops = [this.loop(() => this.batch()), this.loop(() => this.verify())];
  }

  async stop(): Promise<Outcome[]> {
    this.running = false;
    await Promise.all(this.loops);
    return this.outcomes;
  }

  /** Resolves once `count` requests of each kind that started after `since` were accepted. */
  async acceptedSince(since: number, count: number, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const enough = () =>
      (['batch', 'verify'] as const).every((kind) => this.outcomes.filter((o) => o.kind === kind && o.startedAt >= since && o.status === 200).length >= count);
    while (!enough()) {
      if (Date.now() > deadline) throw new Error(`fewer than ${count} accepted requests of each kind after the recovery within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  private async loop(send: () => Promise<void>): Promise<void> {
    const inFlight = new Set<Promise<void>>();
    while (this.running) {
      if (inFlight.size < MAX_IN_FLIGHT) {
        const request = send().finally(() => inFlight.delete(request));
        inFlight.add(request);
      }
      await new Promise((resolve) => setTimeout(resolve, this.pauseMs));
    }
    await Promise.all(inFlight);
  }

  private async batch(): Promise<void> {
    const destinations = Array.from({ length: BATCH_SIZE }, () => ukMobile(this.next++));
    const body = { template: { text: 'Outage load' }, messages: destinations.map((destination) => ({ destination })), includeMessagesInResponse: true };
    const key = `outage-${randomUUID()}`;
    await this.record('batch', destinations, () => this.postBatch(body, key), body, key);
  }

  /**
   * Sends every batch not answered 200 again, with its key and body, as a client following
   * `Retry-After` does; the outcomes of those retries, in the order of the refused batches.
   */
  async retryRefusedBatches(): Promise<Outcome[]> {
    const retries: Outcome[] = [];
    for (const refused of this.outcomes.filter((o) => o.kind === 'batch' && o.status !== 200)) {
      retries.push(await this.attempt('batch', refused.destinations, () => this.postBatch(refused.body, refused.idempotencyKey as string), refused.body, refused.idempotencyKey));
    }
    return retries;
  }

  private postBatch(body: unknown, key: string): Promise<Response> {
    return request(`${this.stack.messagingUrl}/api/v1/subaccounts/${this.account.subAccountId}/messages/batch`, {
      token: this.account.apiKey,
      body,
      headers: { 'idempotency-key': key },
      signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
    });
  }

  private async verify(): Promise<void> {
    const destination = ukMobile(this.next++);
    await this.record('verify', [destination], () => postVerification(this.stack, this.account, { destination }, AbortSignal.timeout(CLIENT_TIMEOUT_MS)));
  }

  private async record(kind: Outcome['kind'], destinations: string[], send: () => Promise<Response>, body?: unknown, idempotencyKey?: string): Promise<void> {
    this.outcomes.push(await this.attempt(kind, destinations, send, body, idempotencyKey));
  }

  private async attempt(kind: Outcome['kind'], destinations: string[], send: () => Promise<Response>, body?: unknown, idempotencyKey?: string): Promise<Outcome> {
    const startedAt = Date.now();
    let replayed = false;
    let status = 0;
    let retryAfter: string | null = null;
    let code: number | undefined;
    let umids: string[] = [];
    try {
      const res = await send();
      status = res.status;
      retryAfter = res.headers.get('retry-after');
      replayed = res.headers.get('idempotent-replayed') === 'true';
      const answer = (await res.json()) as { code?: number; messages?: { umid: string }[] };
      code = answer.code;
      umids = (answer.messages ?? []).map((m) => m.umid);
    } catch {
      status = 0; // the client's timeout, or the connection refused
    }
    return { kind, startedAt, endedAt: Date.now(), status, retryAfter, code, destinations, umids, replayed, ...(idempotencyKey !== undefined && { idempotencyKey, body }) };
  }
}

/** Median and maximum of the answer times of `outcomes`, in ms. */
export function latencies(outcomes: readonly Outcome[]): { count: number; p50: number; max: number } {
  const sorted = outcomes.map((o) => o.endedAt - o.startedAt).sort((a, b) => a - b);
  return { count: sorted.length, p50: sorted[Math.floor(sorted.length / 2)] ?? 0, max: sorted[sorted.length - 1] ?? 0 };
}
