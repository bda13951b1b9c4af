import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { CarrierFaults } from './carrier-faults';
import { HttpError, readJson, send } from './http-json';
import type { InboundOriginator } from './inbound-originator';
import { routeInbound } from './inbound-routes';
import { messageView, type MessageQuery, type MessageStore } from './message-store';
import { zeroCounters, type SimulatorCounters } from './simulator-stats';
import { SimulatorConfigError, applyConfigPatch, publicConfig, type SimulatorConfig } from './simulator.config';

/**
 * HTTP/JSON view into the simulator for tests and benchmarks: what it received, its counters,
 * and its settings (which `PUT /config` changes without a restart), plus the action that breaks
 * the carrier at once (`POST /sessions/drop`, at once or once submits are held), and mobile-originated messages sent on request (`/inbound`).
 */

export interface Gauges {
  sessions: number;
  boundSessions: number;
  receiptsQueued: number;
  receiptsInFlight: number;
  messagesStored: number;
  /** `POST /inbound` messages and owed parts waiting for a session with room in its window. */
  inboundQueued: number;
  /** Inbound deliver_sm sent and not answered yet. */
  inboundAwaitingResponse: number;
  /** submit_sm held by submitDelayMs, not answered yet. */
  submitsHeld: number;
  /** What is left of a refusal started by `POST /sessions/drop?refuseBindsMs=`. */
  bindRefusalRemainingMs: number;
}

export interface InspectionContext {
  config: { current: SimulatorConfig };
  store: MessageStore;
  counters: SimulatorCounters;
  faults: CarrierFaults;
  inbound: InboundOriginator;
  /** Closes every SMPP connection; returns how many were open. */
  dropSessions(): number;
  gauges(): Gauges;
}

export function createInspectionServer(ctx: InspectionContext): Server {
  return createServer((req, res) => {
    route(ctx, req)
      .then(([status, body]) => send(res, status, body))
      .catch((error: unknown) => {
        if (error instanceof HttpError) send(res, error.status, { error: error.message, problems: error.problems });
        else send(res, 500, { error: 'internal error', detail: error instanceof Error ? error.message : String(error) });
      });
  });
}

async function route(ctx: InspectionContext, req: IncomingMessage): Promise<[number, unknown]> {
  const url = new URL(req.url ?? '/', 'http://simulator');
  const path = url.pathname.replace(/\/+$/, '') || '/';
  const method = req.method ?? 'GET';
  const only = (allowed: string) => {
    if (method !== allowed) throw new HttpError(405, `${method} not allowed on ${path}`);
  };

  if (path === '/health' || path === '/health/live' || path === '/health/ready') {
    only('GET');
    return [200, { status: 'ok' }];
  }
  if (path === '/messages') {
    if (method === 'DELETE') {
      const deleted = ctx.store.clear();
      Object.assign(ctx.counters, zeroCounters());
      return [200, { deleted }];
    }
    only('GET');
    const { messages, matched } = ctx.store.list(messageQuery(url.searchParams));
    return [200, { count: messages.length, matched, messages: messages.map(messageView) }];
  }
  const byId = /^\/messages\/([^/]+)$/.exec(path);
  if (byId) {
    only('GET');
    const message = ctx.store.get(decodeURIComponent(byId[1] as string));
    if (!message) throw new HttpError(404, 'no message with this id');
    return [200, messageView(message)];
  }
  if (path === '/stats') {
    only('GET');
    return [200, { ...ctx.counters, ...ctx.gauges() }];
  }
  if (path === '/sessions/drop') {
    only('POST');
    req.resume();
    const refuseBindsMs = optionalWholeNumber(url.searchParams, 'refuseBindsMs', MAX_REFUSE_BINDS_MS);
    const whenHeld = optionalWholeNumber(url.searchParams, 'whenHeld', MAX_WHEN_HELD);
    // A drop that must catch submits on the wire waits for them here, where they are held: a test
    // polling /stats from outside would drop between two bursts as often as during one.
    if (whenHeld !== null && !(await heldAtLeast(ctx, whenHeld))) {
      throw new HttpError(409, `fewer than ${whenHeld} submit_sm were held within ${WHEN_HELD_WAIT_MS} ms; nothing dropped`);
    }
    // Refusing first: an ESME that reconnects at once must already find the carrier down.
    const refuseBindsUntil = refuseBindsMs === null ? null : ctx.faults.refuseBindsFor(refuseBindsMs);
    const dropped = ctx.dropSessions();
    return [200, refuseBindsUntil ? { dropped, refuseBindsUntil: refuseBindsUntil.toISOString() } : { dropped }];
  }
  if (path === '/config') {
    if (method === 'PUT') {
      try {
        const patch = await readJson(req);
        ctx.config.current = applyConfigPatch(ctx.config.current, patch);
        // Switching refusal off brings the carrier back, whichever way it was refused.
        if (!ctx.config.current.refuseBinds && Object.hasOwn(patch as object, 'refuseBinds')) ctx.faults.endTimedRefusal();
      } catch (error) {
        if (error instanceof SimulatorConfigError) throw new HttpError(400, 'invalid configuration', error.problems);
        throw error;
      }
    } else {
      only('GET');
    }
    return [200, publicConfig(ctx.config.current)];
  }
  const inbound = await routeInbound(ctx.inbound, req, path, method);
  if (inbound) return inbound;
  throw new HttpError(404, `no route ${path}`);
}

const MAX_REFUSE_BINDS_MS = 86_400_000;
const MAX_WHEN_HELD = 100_000;
const WHEN_HELD_WAIT_MS = 30_000;

/** Whether at least `count` submit_sm are held at once within WHEN_HELD_WAIT_MS (looked at every millisecond). */
async function heldAtLeast(ctx: InspectionContext, count: number): Promise<boolean> {
  const until = Date.now() + WHEN_HELD_WAIT_MS;
  while (ctx.gauges().submitsHeld < count) {
    if (Date.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return true;
}

function optionalWholeNumber(params: URLSearchParams, name: string, max: number): number | null {
  const raw = params.get(name);
  if (raw === null) return null;
  if (!/^\d+$/.test(raw) || Number(raw) > max) throw new HttpError(400, `${name} must be a whole number from 0 to ${max}`);
  return Number(raw);
}

/** A full store is 100,000 messages, some 70 MB of JSON: a page is enough unless asked for more. */
const DEFAULT_LIST_LIMIT = 10_000;

function messageQuery(params: URLSearchParams): MessageQuery {
  const query: MessageQuery = { limit: DEFAULT_LIST_LIMIT };
  const destination = params.get('destination');
  if (destination !== null) query.destination = destination;
  const since = params.get('since');
  if (since !== null) {
    query.since = new Date(since);
    if (Number.isNaN(query.since.getTime())) throw new HttpError(400, 'since must be an ISO date');
  }
  const limit = params.get('limit');
  if (limit !== null) {
    if (!/^\d+$/.test(limit)) throw new HttpError(400, 'limit must be a whole number');
    query.limit = Number(limit);
  }
  return query;
}
