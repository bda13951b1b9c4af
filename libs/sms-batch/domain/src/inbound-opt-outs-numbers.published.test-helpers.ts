import { createHash } from 'node:crypto';
import type { EventEnvelope, NewEvent } from '@seed/contracts';
import { inboundGroupStreamId, inboundMessageStreamId, NUMBERS_STREAM, optOutStreamId, type InboundMessageReceivedV1 } from '@seed/sms-batch-contracts';
import { parseInboundPdu, siblingKey, INBOUND_PART_MAX_WAIT_MS, type InboundPart, type InboundPdu } from './inbound';
import { decideInboundExpiry, decideInboundPart, EMPTY_INBOUND_STREAM, evolveInbound, type InboundAddressee, type InboundEvent } from './inbound-assembly';
import { normalizeMsisdn } from './msisdn';
import { decideNumbers, evolveNumbers, initialNumbersState, type NumbersCommand } from './numbers';
import { decideOptOut, evolveOptOut, NO_OPT_OUT, type OptOutChange } from './opt-outs';

/*
 * The inbound, opt-out and number events as sms-batch publishes them, for the specs that keep
 * docs/asyncapi.json and docs/events.md in step with the deciders. Parts are read by the real PDU
 * decoder and decided by decideInboundPart / decideInboundExpiry; a STOP or START to a number of
 * ours changes the sender's opt-out in the same append, with the same envelope, as
 * apps/sms-batch/src/inbound/inbound-recorder.ts does; opt-outs by an operator and numbers are
 * decided as the admin commands are, in the envelope of an admin request.
 */

export type PublishedEvent = Required<EventEnvelope>;

export const INBOUND_TYPES = ['InboundPartReceived', 'InboundMessageReceived'];
export const OPT_OUT_TYPES = ['RecipientOptedOut', 'RecipientOptedIn'];
export const NUMBER_TYPES = ['NumberAssigned', 'NumberReleased'];

const HANDSET = '447700900123';
const OUR_NUMBER = '447700100100';
const SHORT_CODE = '60123';
const ADMIN_CORRELATION_ID = '2b8e4f1a-6c3d-4a9e-8f7b-0d1c2e3f4a5b';
const ACME_HQ: InboundAddressee = { accountId: 'acme', subAccountId: 'acme_hq', inboundWebhookUrl: 'https://hooks.example.com/inbound' };
const ACME_SHORT_CODE: InboundAddressee = { accountId: 'acme', subAccountId: 'acme_marketing', inboundWebhookUrl: null };

const id = (prefix: string, n: number): string => `${prefix}${String(n).padStart(2, '0')}`;
const later = (at: string, ms: number): string => new Date(Date.parse(at) + ms).toISOString();

/** Stream ids as the recorder derives them: short, and without the phone numbers or the text. */
const digest = (parts: readonly string[]): string => createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 32);
export function inboundStreamOf(part: InboundPart): string {
  const key = siblingKey(part);
  return key === null ? inboundMessageStreamId(digest([part.source, part.destination, part.encoding, part.userData])) : inboundGroupStreamId(digest([key]));
}

/** A deliver_sm from a handset as the decoder reads it; ASCII letters, digits and `.,?!'` are their own GSM-7 septets. */
const pdu = (overrides: Partial<InboundPdu> & { text?: string }): InboundPart => {
  const { text = '', ...fields } = overrides;
  return parseInboundPdu({ sourceAddr: HANDSET, destinationAddr: OUR_NUMBER, esmClass: 0, dataCoding: 0, shortMessage: Buffer.from(text, 'latin1'), ...fields });
};
const udh8 = (reference: number, total: number, sequence: number, text: string): InboundPart =>
  pdu({ esmClass: 0x40, shortMessage: Buffer.concat([Buffer.from([0x05, 0x00, 0x03, reference, total, sequence]), Buffer.from(text, 'latin1')]) });
const utf16 = (text: string): Buffer => Buffer.from(text, 'utf16le').swap16();

interface Meta {
  correlationId: string;
  causationId: string | null;
  occurredAt: string;
}

/** sms-batch's log: events appended per stream at the next position, published in order. */
class PublishedLog {
  readonly events: PublishedEvent[] = [];

  constructor(private readonly eventIdPrefix: string, private readonly firstGlobalPosition: number) {}

  stream(streamId: string): PublishedEvent[] {
    return this.events.filter((e) => e.streamId === streamId);
  }

  append(appends: { streamId: string; events: NewEvent[] }[], meta: Meta): void {
    for (const { streamId, events } of appends) {
      for (const event of events) {
        const n = this.events.length + 1;
        this.events.push({
          eventId: id(this.eventIdPrefix, n),
          type: event.type,
          schemaVersion: event.schemaVersion,
          streamId,
          streamPosition: this.stream(streamId).length + 1,
          globalPosition: String(this.firstGlobalPosition + n),
          occurredAt: meta.occurredAt,
          correlationId: meta.correlationId,
          causationId: meta.causationId,
          traceparent: null,
          data: event.data,
        });
      }
    }
  }

  /** One part recorded as the recorder does: the part's stream, and the sender's opt-out on a STOP or START, in one append. */
  inbound(part: InboundPart, receivedAt: string, umid: string, groupId: string, addressee: InboundAddressee | null, carrierId = 'carrier-a'): void {
    const streamId = inboundStreamOf(part);
    const state = this.stream(streamId).reduce(evolveInbound, EMPTY_INBOUND_STREAM);
    // A carrier other than carrier-a may not deliver to these numbers: the recorder gives its messages no owner.
    const unboundCarrier = carrierId !== 'carrier-a' && addressee !== null;
    const decided = decideInboundPart({ part, carrierId, receivedAt, umid, groupId, addressee: unboundCarrier ? null : addressee, duplicateWindowMs: 120_000, unboundCarrier }, state);
    this.record(streamId, decided, receivedAt);
  }

  /** The expiry sweep over the stream of `part`, `at`. */
  expire(part: InboundPart, at: string, umid: string, addressee: InboundAddressee | null): void {
    const streamId = inboundStreamOf(part);
    const state = this.stream(streamId).reduce(evolveInbound, EMPTY_INBOUND_STREAM);
    this.record(streamId, decideInboundExpiry({ at, umid, addressee, maxWaitMs: INBOUND_PART_MAX_WAIT_MS }, state), at);
  }

  private record(streamId: string, events: InboundEvent[], at: string): void {
    const message = events.find((e) => e.type === 'InboundMessageReceived')?.data as InboundMessageReceivedV1 | undefined;
    const { accountId, subAccountId, keyword } = message ?? {};
    const optOut =
      message && accountId && subAccountId && (keyword === 'opt-out' || keyword === 'opt-in')
        ? this.optOutAppend({
            type: keyword === 'opt-out' ? 'OptOut' : 'OptIn',
            accountId,
            subAccountId,
            msisdn: normalizeMsisdn(message.source) ?? message.source,
            source: 'keyword',
            keyword: message.body.trim(),
            at: message.receivedAt,
          })
        : [];
    if (events.length > 0) this.append([{ streamId, events }, ...optOut], { correlationId: message?.umid ?? streamId, causationId: null, occurredAt: later(at, 6) });
  }

  private optOutAppend(change: OptOutChange): { streamId: string; events: NewEvent[] }[] {
    const streamId = optOutStreamId(change.subAccountId, change.msisdn);
    return [{ streamId, events: decideOptOut(change, this.stream(streamId).reduce(evolveOptOut, NO_OPT_OUT)) }];
  }

  /** An operator's opt-out or opt-in through the admin API. */
  adminOptOut(change: Omit<OptOutChange, 'source' | 'keyword'>, commandId: string): void {
    this.append(this.optOutAppend({ ...change, source: 'admin', keyword: null } as OptOutChange), { correlationId: ADMIN_CORRELATION_ID, causationId: commandId, occurredAt: change.at });
  }

  /** A numbers command through the admin API. */
  numbers(command: NumbersCommand, at: string, commandId: string): void {
    const state = this.stream(NUMBERS_STREAM).reduce(evolveNumbers, initialNumbersState());
    this.append([{ streamId: NUMBERS_STREAM, events: decideNumbers(command, state, at) }], { correlationId: ADMIN_CORRELATION_ID, causationId: commandId, occurredAt: at });
  }
}

const COMMAND_ID = '4d7a1e9c-3b2f-4c8d-a5e6-7f8091a2b3';
const UMID = '9c1e5a7b-3d2f-4e6a-8b0c-1d2e3f4a5b';
const GROUP_ID = 'b3f1d2c4-5e6a-4b7c-9d8e-0f1a2b3c4d';
const T = '2030-01-15T10:05:00.000Z';

/** The documented story: numbers assigned, a two-part message, a STOP, the operator's opt-in, a number released. */
function documented(log: PublishedLog): PublishedLog {
  log.numbers({ type: 'PutNumber', number: OUR_NUMBER, assignment: { ...ACME_HQ, helpText: 'Acme parcels: reply STOP to opt out. Help: support@acme.example' } }, T, id(COMMAND_ID, 1));
  log.numbers({ type: 'PutNumber', number: SHORT_CODE, assignment: { ...ACME_SHORT_CODE, helpText: null } }, later(T, 60_000), id(COMMAND_ID, 2));
  const first = 'Hi, I will not be at home between 10 and 12 today. Could you leave the parcel with my neighbour at number 14, or deliver it tomorrow morning instead? Thank you, and sorry for the trouble. Anna';
  log.inbound(udh8(42, 2, 1, first.slice(0, 153)), '2030-01-15T10:12:30.210Z', id(UMID, 1), id(GROUP_ID, 1), ACME_HQ);
  log.inbound(udh8(42, 2, 2, first.slice(153)), '2030-01-15T10:12:31.045Z', id(UMID, 2), id(GROUP_ID, 2), ACME_HQ);
  log.inbound(pdu({ text: 'STOP' }), '2030-01-15T10:20:04.512Z', id(UMID, 3), id(GROUP_ID, 3), ACME_HQ);
  log.adminOptOut({ type: 'OptIn', accountId: 'acme', subAccountId: 'acme_hq', msisdn: HANDSET, at: '2030-01-16T09:30:00.000Z' }, id(COMMAND_ID, 3));
  log.numbers({ type: 'RemoveNumber', number: SHORT_CODE }, '2030-01-16T09:45:00.000Z', id(COMMAND_ID, 4));
  return log;
}

export const documentedTwoWayEvents = (): PublishedEvent[] => documented(new PublishedLog('8a4f2b5d-0e6c-4b1a-9d3f-5c2e1b0a9f', 1200)).events;

/** More paths than the documented one, so that every nullable field, keyword, encoding and scheme is seen. */
export function variedTwoWayEvents(): PublishedEvent[] {
  const log = documented(new PublishedLog('8a4f2b5d-0e6c-4b1a-9d3f-5c2e1b0a9f', 1200));
  const at = (n: number): string => later('2030-01-17T08:00:00.000Z', n * 1000);
  const single = (n: number, overrides: Partial<InboundPdu> & { text?: string }, addressee: InboundAddressee | null = ACME_HQ): void =>
    log.inbound(pdu(overrides), at(n), id(UMID, 10 + n), id(GROUP_ID, 10 + n), addressee);
  // The short code again, then a STOP, a START and a HELP to it.
  log.numbers({ type: 'PutNumber', number: SHORT_CODE, assignment: { ...ACME_SHORT_CODE, helpText: null } }, at(0), id(COMMAND_ID, 10));
  single(1, { text: 'Is the parcel coming today?' });
  single(2, { text: 'Stop', destinationAddr: SHORT_CODE }, ACME_SHORT_CODE);
  single(3, { text: ' start ', destinationAddr: SHORT_CODE }, ACME_SHORT_CODE);
  single(4, { text: 'help', destinationAddr: SHORT_CODE }, ACME_SHORT_CODE);
  single(5, { text: 'Hello', destinationAddr: '447700100999' }, null);
  single(6, { dataCoding: 0x01, text: 'Call me @ 10' });
  single(7, { dataCoding: 0x03, text: 'Gr\u00fc\u00dfe' });
  single(8, { dataCoding: 0x04, shortMessage: Buffer.from([0xca, 0xfe, 0x01]) });
  single(9, { dataCoding: 0x08, shortMessage: utf16('\u041f\u0440\u0438\u0432\u0435\u0442 \ud83d\ude00') });
  // UCS-2 parts by a 16-bit reference, the emoji split between them; SAR parts of which one never comes.
  const emoji = utf16('Na zdrav\u00ed \ud83c\udf7b');
  const udh16 = (sequence: number, body: Buffer): InboundPart =>
    pdu({ esmClass: 0x40, dataCoding: 0x08, shortMessage: Buffer.concat([Buffer.from([0x06, 0x08, 0x04, 0x01, 0x2c, 2, sequence]), body]) });
  log.inbound(udh16(2, emoji.subarray(22)), at(10), id(UMID, 30), id(GROUP_ID, 30), ACME_HQ);
  log.inbound(udh16(1, emoji.subarray(0, 22)), at(11), id(UMID, 31), id(GROUP_ID, 31), ACME_HQ);
  const sar = pdu({ text: 'The first of three', sarMsgRefNum: 517, sarTotalSegments: 3, sarSegmentSeqnum: 1 });
  log.inbound(sar, at(12), id(UMID, 32), id(GROUP_ID, 32), ACME_HQ);
  log.expire(sar, later(at(12), INBOUND_PART_MAX_WAIT_MS), id(UMID, 33), ACME_HQ);
  log.adminOptOut({ type: 'OptOut', accountId: 'acme', subAccountId: 'acme_hq', msisdn: '447700900456', at: at(20) }, id(COMMAND_ID, 20));
  log.numbers({ type: 'PutNumber', number: OUR_NUMBER, assignment: { ...ACME_HQ, inboundWebhookUrl: null, helpText: null } }, at(21), id(COMMAND_ID, 21));
  // The number bound to carrier-a by name; a START to it from another carrier is not the handset's.
  log.numbers({ type: 'PutNumber', number: OUR_NUMBER, assignment: { ...ACME_HQ, inboundWebhookUrl: null, helpText: null, carriers: ['carrier-a'] } }, at(22), id(COMMAND_ID, 22));
  log.inbound(pdu({ text: 'START' }), at(23), id(UMID, 40), id(GROUP_ID, 40), ACME_HQ, 'carrier-x');
  return log.events;
}
