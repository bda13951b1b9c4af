import type { IncomingMessage } from 'node:http';
import { HttpError, readJson } from './http-json';
import type { InboundPart } from './inbound-deliver-sm';
import { NoReceiverError, type InboundOriginator, type InboundRecord } from './inbound-originator';
import { InboundRequestError, parseInboundRequest } from './inbound-request';
import { InboundTextError } from './inbound-segmentation';

/** `/inbound`: originate a mobile-originated message, see what was sent and answered, forget it. */

export interface InboundPartView {
  number: number;
  esmClass: number;
  /** Hex of the concatenation header in short_message, or null. */
  udh: string | null;
  /** Hex of the text octets. */
  payload: string;
  /** Hex of short_message as sent (UDH and text). */
  shortMessage: string;
  sar: { reference: number; total: number; sequence: number } | null;
}

export type InboundView = ReturnType<typeof inboundView>;

export function inboundView(record: InboundRecord) {
  const { request } = record;
  return {
    id: record.id,
    createdAt: record.createdAt.toISOString(),
    source: request.source,
    destination: request.destination,
    text: request.text,
    encoding: record.encoding,
    dataCoding: record.dataCoding,
    concatenation: record.parts.length > 1 ? request.concatenation : null,
    reference: record.reference,
    order: request.order,
    duplicate: request.duplicate,
    loseFirstResponse: request.loseFirstResponse,
    resendAfterMs: request.resendAfterMs,
    parts: record.parts.map(partView),
    deliveries: record.deliveries.map((d) => ({
      part: d.part,
      reason: d.reason,
      sequenceNumber: d.sequenceNumber,
      session: d.session,
      sentAt: d.sentAt.toISOString(),
      response: d.response && { status: d.response.status, receivedAt: d.response.receivedAt.toISOString(), lost: d.response.lost },
    })),
    unsentResends: record.unsentResends.map((u) => ({ part: u.part, dueAt: u.dueAt.toISOString() })),
    // Every part answered with status 0 at least once, not counting answers treated as lost.
    acknowledged: record.parts.every((p) => record.deliveries.some((d) => d.part === p.number && d.response?.status === 0 && !d.response.lost)),
  };
}

function partView(part: InboundPart): InboundPartView {
  return {
    number: part.number,
    esmClass: part.esmClass,
    udh: part.udh?.toString('hex') ?? null,
    payload: part.payload.toString('hex'),
    shortMessage: part.shortMessage.toString('hex'),
    sar: part.sar,
  };
}

/** Answers the `/inbound` paths; null for any other path. */
export async function routeInbound(inbound: InboundOriginator, req: IncomingMessage, path: string, method: string): Promise<[number, unknown] | null> {
  if (path === '/inbound') {
    if (method === 'POST') return [201, originate(inbound, await readJson(req))];
    if (method === 'DELETE') return [200, { deleted: inbound.clear() }];
    if (method !== 'GET') throw new HttpError(405, `${method} not allowed on ${path}`);
    const records = inbound.list();
    return [200, { count: records.length, inbound: records.map(inboundView) }];
  }
  const byId = /^\/inbound\/([^/]+)$/.exec(path);
  if (!byId) return null;
  if (method !== 'GET') throw new HttpError(405, `${method} not allowed on ${path}`);
  const record = inbound.get(decodeURIComponent(byId[1] as string));
  if (!record) throw new HttpError(404, 'no inbound message with this id');
  return [200, inboundView(record)];
}

/** One message: its view. `count` messages: how many, and the first and last id (they follow one another). */
function originate(inbound: InboundOriginator, body: unknown): InboundView | { count: number; firstId: string; lastId: string } {
  try {
    const request = parseInboundRequest(body);
    if (request.count === null) return inboundView(inbound.originate(request));
    const records = inbound.originateMany(request, request.count);
    return { count: records.length, firstId: (records[0] as InboundRecord).id, lastId: (records[records.length - 1] as InboundRecord).id };
  } catch (error) {
    if (error instanceof InboundRequestError) throw new HttpError(400, 'invalid inbound message', error.problems);
    if (error instanceof InboundTextError) throw new HttpError(400, 'invalid inbound message', [error.message]);
    if (error instanceof NoReceiverError) throw new HttpError(409, error.message);
    throw error;
  }
}
