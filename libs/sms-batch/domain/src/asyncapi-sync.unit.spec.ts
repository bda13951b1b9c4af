import { MessageHeader, type EventEnvelope, type NewEvent } from '@seed/contracts';
import { AsyncApiDocument, type Json, type Schema } from '@seed/platform-testing';
import {
  batchStreamId,
  messageStreamId,
  RejectionDescription,
  SMS_BATCH_EVENT_TOPIC,
  type CarrierReceipt,
  type InboundMessageReceivedV1,
  type InboundPartReceivedV1,
  type MessageDeliveredV1,
  type MessageQueuedV1,
  type MessageRef,
  type MessageRoutedV1,
  type MessageUndeliveredV1,
  type ReceiptRecordedV1,
  type RecipientOptedOutV1,
  type SubmitBatchData,
} from '@seed/sms-batch-contracts';
import { decideSubmitBatch, initialBatchState, type DecidedBatch } from './batch-submission.decider';
import { ESM_CLASS_DELIVERY_RECEIPT, parseDeliveryReceipt } from './delivery-receipt';
import {
  decideMessage,
  evolveMessage,
  FAILURE_STAT_MESSAGES,
  initialMessageState,
  NO_ROUTE_ERROR_CODE,
  type MessageCommand,
  type RoutingDecision,
} from './message-lifecycle.decider';
import { CONFIG_TYPES, documentedConfigEvents, variedConfigEvents } from './routing/routing-config.published.test-helpers';
import { documentedTwoWayEvents, INBOUND_TYPES, NUMBER_TYPES, OPT_OUT_TYPES, variedTwoWayEvents } from './inbound-opt-outs-numbers.published.test-helpers';

/*
 * docs/asyncapi.json and docs/events.md are what outside subscribers code against. This spec keeps
 * them in step with the code: the topic constant, the event types and versions the real deciders
 * produce (decideSubmitBatch for a batch, decideMessage for what happens to a message after it was
 * queued, decideRoutingConfig for carriers and routes, decideInboundPart / decideInboundExpiry,
 * decideOptOut and decideNumbers for inbound SMS, opt-outs and numbers), every data field they
 * write, the envelope type, and the documented examples.
 */

const asyncApi = new AsyncApiDocument();
const { doc, eventsMd, deref, problems } = asyncApi;

// --- the document's parts ---

const channel = (doc['channels'] as Record<string, Schema>)['smsBatchEvents'] as Schema;
const channelMessages = Object.values(channel['messages'] as Record<string, Schema>).map(deref);
const messageNamed = (type: string): Schema => {
  const matching = channelMessages.filter((m) => m['name'] === type);
  expect(matching).toHaveLength(1);
  return matching[0] as Schema;
};
const payloadOf = (type: string): Schema => deref(messageNamed(type)['payload'] as Schema);
const propertiesOf = (schema: Schema): Record<string, Schema> => deref(schema)['properties'] as Record<string, Schema>;
const dataSchemaOf = (type: string): Schema => deref(propertiesOf(payloadOf(type))['data'] as Schema);
const sorted = (values: Iterable<string>): string[] => [...values].sort();

// --- real events, from the real decider, wrapped as the event store and the outbox relay publish them ---

const NOW = '2030-01-15T10:00:00.123Z';
const BATCH_ID = '7d3f6c1e-5a2b-4c8d-9e0f-1a2b3c4d5e6f';
const COMMAND_ID = '3c2b1a09-8f7e-4d6c-8b5a-493827160514';
const CORRELATION_ID = 'e2b7c1d4-6a5f-4e3d-9c2b-1a0f9e8d7c6b';
const uuid = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function decide(data: SubmitBatchData, umids = data.messages.map((_, i) => uuid(i + 1)), now = NOW): DecidedBatch {
  return decideSubmitBatch({ data, batchId: BATCH_ID, umids, now }, initialBatchState());
}

/** Every field of the envelope type, none optional: the compiler keeps this list equal to EventEnvelope's. */
type PublishedEvent = Required<EventEnvelope>;

function published(decided: DecidedBatch): PublishedEvent[] {
  let position = 1000;
  const wrap = (streamId: string, event: NewEvent, index: number): PublishedEvent => ({
    eventId: uuid(90_000 + position),
    type: event.type,
    schemaVersion: event.schemaVersion,
    streamId,
    streamPosition: index + 1,
    globalPosition: String(++position),
    occurredAt: NOW,
    correlationId: CORRELATION_ID,
    causationId: COMMAND_ID,
    traceparent: null,
    data: event.data,
  });
  return [
    ...decided.batch.map((event, i) => wrap(batchStreamId(BATCH_ID), event, i)),
    ...decided.messages.flatMap((message) => message.events.map((event, i) => wrap(messageStreamId(message.umid), event, i))),
  ];
}

/** A batch that makes the decider write every event type, every nullable field both ways, every rejection it can decide. */
const VARIED: SubmitBatchData = {
  accountId: 'acme',
  subAccountId: 'acme_hq',
  includeMessagesInResponse: true,
  template: { text: 'Template text', source: 'ACME' },
  messages: [
    { destination: '+447911123456', dlrCallbackUrl: 'https://hooks.example.com/dlr' },
    {
      destination: '07911 123457',
      country: 'GB',
      clientMessageId: 'm-2',
      text: 'Привет',
      source: '',
      encoding: 'UCS2',
      scheduled: '2030-01-16T10:00:00+01:00',
      expiry: '2030-01-17T10:00:00Z',
      dlrCallbackUrl: 'http://localhost:8080/dlr',
    },
    { destination: '+12025550123', text: 'Grüße 😀', encoding: 'GSM7', scheduled: '2000-01-01T00:00:00Z' },
    { destination: '+447911123458', text: '' },
    { destination: '+447911123459', text: 'a'.repeat(1531) },
    { destination: '+447911123460', source: 'ACMEBANK1234' },
    { destination: '+447911123461', expiry: '2030-01-15T10:00:00.000Z' },
    { destination: 'not a number', clientMessageId: 'm-8' },
    { destination: '' },
  ],
};
const variedWithClientBatchId: SubmitBatchData = { ...VARIED, clientBatchId: 'order-42' };
const batchEvents = [...published(decide(VARIED)), ...published(decide(variedWithClientBatchId))];

// --- what happens after acceptance: decideMessage over the state folded from a real MessageQueued ---

const BATCH_TYPES = ['BatchSubmitted', 'MessageQueued', 'MessageRejected'];
const LIFECYCLE_TYPES = ['MessageRouted', 'MessageSent', 'MessageDelivered', 'MessageUndelivered', 'ReceiptRecorded'];
const TWO_WAY_TYPES = [...INBOUND_TYPES, ...OPT_OUT_TYPES, ...NUMBER_TYPES];
const ALL_TYPES = [...BATCH_TYPES, ...LIFECYCLE_TYPES, ...CONFIG_TYPES, ...TWO_WAY_TYPES];
/** Fields a decider writes only sometimes, by type: absent in events written before routing existed. */
const OPTIONAL_FIELDS: Record<string, string[]> = { MessageSent: ['carrierId'], InboundMessageReceived: ['unboundCarrier'], NumberAssigned: ['carriers'] };
const LATER = '2030-01-15T10:00:05.000Z';

/**
 * The events decideMessage writes for `commands` in turn, each decided on the state folded from the
 * real MessageQueued and every event before it, wrapped as the lifecycle writer appends them: after
 * the MessageQueued in its stream, correlation id `carrier`, no causation, no trace.
 */
function lifecycle(queued: PublishedEvent, commands: MessageCommand[]): PublishedEvent[] {
  if (queued.type !== 'MessageQueued') throw new Error(`a lifecycle starts from a MessageQueued, not ${queued.type}`);
  let state = evolveMessage(initialMessageState(), queued);
  const written: PublishedEvent[] = [];
  for (const command of commands) {
    for (const event of decideMessage(command, state)) {
      state = evolveMessage(state, event);
      const position = queued.streamPosition + written.length + 1;
      written.push({
        eventId: uuid(80_000 + position),
        type: event.type,
        schemaVersion: event.schemaVersion,
        streamId: queued.streamId,
        streamPosition: position,
        globalPosition: String(5000 + position),
        occurredAt: LATER,
        correlationId: 'carrier',
        causationId: null,
        traceparent: null,
        data: event.data,
      });
    }
  }
  return written;
}

/** A receipt as the real parser reads it from a deliver_sm: with every field, or only id and stat. */
function receiptOf(carrierMessageId: string, stat: string, form: 'full' | 'bare' = 'full'): CarrierReceipt {
  const err = stat === 'DELIVRD' ? '000' : '034';
  const shortMessage =
    form === 'bare'
      ? `id:${carrierMessageId} stat:${stat}`
      : `id:${carrierMessageId} sub:001 dlvrd:001 submit date:3001151000 done date:3001151001 stat:${stat} err:${err} text:Hello`;
  const receipt = parseDeliveryReceipt({ esmClass: ESM_CLASS_DELIVERY_RECEIPT, shortMessage, receiptedMessageId: null, messageState: null }, LATER);
  if (receipt === null) throw new Error(`not a receipt: ${shortMessage}`);
  return receipt;
}
const got = (receipt: CarrierReceipt): MessageCommand => ({ type: 'RecordReceipt', receipt });
/** The sender records each receipt with the carrier whose session delivered it. */
const gotVia = (carrierId: string, receipt: CarrierReceipt): MessageCommand => ({ type: 'RecordReceipt', receipt: { ...receipt, carrierId } });
const ROUTED_A: RoutingDecision = { routeId: 'uk', carrierId: 'carrier-a', attempt: 1, price: { amount: '0.0125', currency: 'EUR' } };
const ROUTED_B: RoutingDecision = { routeId: 'uk', carrierId: 'carrier-b', attempt: 2, price: { amount: '0.0125', currency: 'EUR' } };
const CATCH_ALL: RoutingDecision = { routeId: null, carrierId: 'default', attempt: 1, price: null };

/** Every path of a queued message: every lifecycle event, every note and reason, nullable fields both ways. */
function everyOutcomeOf(queued: PublishedEvent): PublishedEvent[] {
  const { umid, smsCount, expiry } = queued.data as MessageQueuedV1;
  const ids = Array.from({ length: smsCount }, (_, part) => `${umid.slice(-4)}${part}a`);
  const submit: MessageCommand = { type: 'RecordSubmission', carrierMessageIds: ids, at: LATER };
  const delivered = ids.map((id) => got(receiptOf(id, 'DELIVRD')));
  const first = ids[0] as string;
  const last = ids[ids.length - 1] as string;
  const scenarios: MessageCommand[][] = [
    // sent; an interim receipt; part 1 delivered, and again; the other parts; a failure after the end
    [submit, got(receiptOf(first, 'ACCEPTD', 'bare')), ...delivered.slice(0, 1), ...delivered, got(receiptOf(first, 'UNDELIV'))],
    // a failure receipt for a part already delivered changes nothing; one for the last part ends it
    [submit, ...(smsCount > 1 ? [delivered[0] as MessageCommand, got(receiptOf(first, 'REJECTD'))] : []), got(receiptOf(last, 'EXPIRED'))],
    [{ type: 'RecordSubmissionFailure', errorCode: '0x0000000B', errorMessage: 'submit_sm refused: 0x0000000B', at: LATER }],
    ...(expiry !== null ? [[{ type: 'ExpireBeforeHandoff', at: expiry } satisfies MessageCommand]] : []),
    // the carrier accepted the parts without giving ids
    [{ type: 'RecordSubmission', carrierMessageIds: ids.map(() => ''), at: LATER }],
    // routed: handed off on the catch-all; failed over from one carrier to the next; refused; no route
    [{ ...submit, routing: CATCH_ALL } as MessageCommand, gotVia('default', receiptOf(first, 'ACCEPTD')), ...delivered.map((c) => gotVia('default', (c as { receipt: CarrierReceipt }).receipt))],
    [{ type: 'RecordFailover', routing: ROUTED_A, detail: 'no bound session', at: LATER }, { ...submit, routing: ROUTED_B } as MessageCommand, gotVia('carrier-b', receiptOf(last, 'UNDELIV'))],
    [{ type: 'RecordSubmissionFailure', errorCode: '0x00000045', errorMessage: 'submit_sm refused: 0x00000045', at: LATER, routing: ROUTED_A }],
    [{ type: 'RecordNoRoute', detail: 'no route matches the message', at: LATER }],
    // the recipient opted out of the sub-account
    [{ type: 'RecordOptedOut', at: LATER }],
  ];
  return scenarios.flatMap((commands) => lifecycle(queued, commands));
}

/** Messages of several parts, so that receipts can complete one part of several. */
const MULTIPART: SubmitBatchData = {
  accountId: 'acme',
  subAccountId: 'acme_hq',
  includeMessagesInResponse: false,
  messages: [
    { destination: '+447911123470', text: 'Long text. '.repeat(40) },
    { destination: '+447911123471', text: 'Привет, мир! '.repeat(12), expiry: '2030-01-15T12:00:00Z', clientMessageId: 'm-long' },
  ],
};
const multipartEvents = published(decide(MULTIPART, [uuid(101), uuid(102)]));
const lifecycleEvents = [...batchEvents, ...multipartEvents].filter((e) => e.type === 'MessageQueued').flatMap(everyOutcomeOf);
const realEvents: PublishedEvent[] = [...batchEvents, ...lifecycleEvents, ...variedConfigEvents(), ...variedTwoWayEvents()];
const eventTypes = sorted(new Set(realEvents.map((e) => e.type)));
const dataOf = <T>(type: string): T[] => realEvents.filter((e) => e.type === type).map((e) => e.data as T);

/** The request behind the documented examples (docs/events.md, docs/asyncapi.json). */
const DOCUMENTED: SubmitBatchData = {
  accountId: 'acme',
  subAccountId: 'acme_hq',
  clientBatchId: 'order-42',
  includeMessagesInResponse: false,
  template: { text: 'Your parcel arrives today between 10:00 and 12:00.', source: 'ACME', dlrCallbackUrl: 'https://hooks.example.com/dlr' },
  messages: [
    { destination: '+44 7911 123456', clientMessageId: 'c-1001' },
    { destination: '07911 12345', clientMessageId: 'c-1002' },
  ],
};
const DOCUMENTED_UMIDS = ['0f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a', '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d'];

/**
 * What happens to the documented queued message (`c-1001`) in the examples of the carrier-delivery
 * events, by example name: the carrier answers its submit_sm with id 1a2b3c4d and quotes that id in
 * decimal (439041101) in its receipts, read from these deliver_sm texts by the real parser.
 */
const DOCUMENTED_SENT_AT = '2030-01-15T10:00:00.412Z';
const documentedReceipt = (stat: string, err: string, receivedAt: string): MessageCommand => {
  const shortMessage = `id:439041101 sub:001 dlvrd:${stat === 'DELIVRD' ? '001' : '000'} submit date:3001151000 done date:3001151000 stat:${stat} err:${err} text:Your parcel arrives t`;
  const receipt = parseDeliveryReceipt({ esmClass: ESM_CLASS_DELIVERY_RECEIPT, shortMessage, receiptedMessageId: null, messageState: null }, receivedAt);
  if (receipt === null) throw new Error(`not a receipt: ${shortMessage}`);
  return gotVia('carrier-a', receipt);
};
const DOCUMENTED_ROUTING: RoutingDecision = { routeId: 'uk-split', carrierId: 'carrier-a', attempt: 1, price: { amount: '0.0125', currency: 'EUR' } };
const documentedSubmission: MessageCommand = { type: 'RecordSubmission', carrierMessageIds: ['1a2b3c4d'], at: DOCUMENTED_SENT_AT, routing: DOCUMENTED_ROUTING };
const documentedDelivery = documentedReceipt('DELIVRD', '000', '2030-01-15T10:00:03.871Z');
const DOCUMENTED_LIFECYCLE: Record<string, MessageCommand[]> = {
  routed: [documentedSubmission],
  'failed-over': [{ type: 'RecordFailover', routing: DOCUMENTED_ROUTING, detail: 'no bound session', at: DOCUMENTED_SENT_AT }],
  sent: [documentedSubmission],
  delivered: [documentedSubmission, documentedDelivery],
  'receipt-again': [documentedSubmission, documentedDelivery, documentedReceipt('DELIVRD', '000', '2030-01-15T10:00:13.902Z')],
  'undelivered-receipt': [documentedSubmission, documentedReceipt('UNDELIV', '001', '2030-01-15T10:00:03.871Z')],
  'carrier-rejected': [{ type: 'RecordSubmissionFailure', errorCode: '0x0000000B', errorMessage: 'submit_sm refused: 0x0000000B', at: DOCUMENTED_SENT_AT, routing: DOCUMENTED_ROUTING }],
  'no-route': [{ type: 'RecordNoRoute', detail: 'no route matches the message', at: DOCUMENTED_SENT_AT }],
};

interface Example {
  name: string;
  headers: Record<string, string>;
  payload: PublishedEvent;
}

function expectHeadersOf(type: string, headers: Record<string, string>, payload: PublishedEvent): void {
  expect(problems(messageNamed(type)['headers'] as Schema, headers)).toEqual([]);
  expect(Object.values(MessageHeader)).toEqual(expect.arrayContaining(Object.keys(headers)));
  expect(headers).toEqual({
    [MessageHeader.MessageId]: payload.eventId,
    [MessageHeader.MessageType]: payload.type,
    [MessageHeader.CorrelationId]: payload.correlationId,
    ...(payload.causationId !== null ? { [MessageHeader.CausationId]: payload.causationId } : {}),
    ...(payload.traceparent !== null ? { [MessageHeader.Traceparent]: payload.traceparent } : {}),
  });
}

/** Both sides of each nullable field occur in `rows`, so the schema is checked with null and with a value. */
function expectNullAndValueSeen(rows: Record<string, unknown>[], fields: string[]): void {
  for (const field of fields) {
    expect({ field, nullSeen: rows.some((d) => d[field] === null), valueSeen: rows.some((d) => d[field] !== null) }).toEqual({
      field,
      nullSeen: true,
      valueSeen: true,
    });
  }
}
const examplesOf = (type: string): Example[] => (messageNamed(type)['examples'] ?? []) as unknown as Example[];

describe('docs/asyncapi.json matches the code', () => {
  it('describes the sms-batch event topic, behind the installation prefix', () => {
    expect(doc['asyncapi']).toMatch(/^3\.0\.\d+$/);
    expect(channel['address']).toBe(`{topicPrefix}${SMS_BATCH_EVENT_TOPIC}`);
    expect((channel['parameters'] as Record<string, Schema>)['topicPrefix']).toMatchObject({ default: '' });
  });

  it('carries exactly the event types the decider produces, each as a message of that name', () => {
    expect(eventTypes).toEqual(sorted(ALL_TYPES));
    expect(sorted(channelMessages.map((m) => String(m['name'])))).toEqual(eventTypes);
    // Other services' channels have operations of their own (checked by their own specs).
    const operations = Object.values(doc['operations'] as Record<string, Schema>).filter(
      (o) => (o['channel'] as Schema)['$ref'] === '#/channels/smsBatchEvents',
    );
    expect(operations).toHaveLength(1);
    const published = operations.flatMap((o) => (o['messages'] as Schema[]).map((m) => String(deref(m)['name'])));
    expect(sorted(published)).toEqual(eventTypes);
  });

  it.each(ALL_TYPES)('%s: type and schemaVersion are those the decider writes', (type) => {
    const versions = new Set(realEvents.filter((e) => e.type === type).map((e) => e.schemaVersion));
    const properties = propertiesOf(payloadOf(type));
    expect(properties['type']).toMatchObject({ const: type });
    expect([...versions]).toEqual([deref(properties['schemaVersion'] as Schema)['const']]);
  });

  it.each(ALL_TYPES)(
    '%s: the data schema requires exactly the fields the decider writes, and allows no others',
    (type) => {
      const schema = dataSchemaOf(type);
      const optional = OPTIONAL_FIELDS[type] ?? [];
      const written = realEvents.filter((e) => e.type === type).map((e) => sorted(Object.keys(e.data as object)));
      expect(written.length).toBeGreaterThan(0);
      for (const keys of written) expect(sorted(schema['required'] as string[])).toEqual(keys.filter((k) => !optional.includes(k)));
      expect(sorted(Object.keys(schema['properties'] as object))).toEqual(sorted([...(schema['required'] as string[]), ...optional]));
      // Each optional field is seen both ways: written, and left out.
      for (const field of optional) expect({ field, with: written.some((k) => k.includes(field)), without: written.some((k) => !k.includes(field)) }).toEqual({ field, with: true, without: true });
      expect(schema['additionalProperties']).toBe(false);
    },
  );

  it.each(ALL_TYPES)(
    '%s: the envelope schema has the fields of EventEnvelope, all required but globalPosition',
    (type) => {
      const payload = payloadOf(type);
      const envelopeFields = sorted(Object.keys(realEvents[0] as PublishedEvent));
      expect(sorted(Object.keys(payload['properties'] as object))).toEqual(envelopeFields);
      expect(sorted(payload['required'] as string[])).toEqual(envelopeFields.filter((f) => f !== 'globalPosition'));
      expect(payload['additionalProperties']).toBe(false);
    },
  );

  it('the receipt schema requires exactly the fields of a parsed receipt, and allows no others but the carrier it came from', () => {
    const schema = deref((doc['components'] as { schemas: Record<string, Schema> }).schemas['CarrierReceipt'] as Schema);
    const keys = sorted(Object.keys(receiptOf('1a', 'DELIVRD')));
    expect(sorted(Object.keys(receiptOf('1a', 'ENROUTE', 'bare')))).toEqual(keys);
    expect(sorted(schema['required'] as string[])).toEqual(keys);
    // carrierId: set by the sender from the session the receipt came in on; absent in receipts recorded before routing.
    expect(sorted(Object.keys(schema['properties'] as object))).toEqual(sorted([...keys, 'carrierId']));
    expect(schema['additionalProperties']).toBe(false);
  });

  it('the carrier-delivery events repeat the message reference, and the schemas agree', () => {
    const queued = batchEvents.find((e) => e.type === 'MessageQueued') as PublishedEvent;
    const refKeys = sorted(Object.keys(evolveMessage(initialMessageState(), queued).ref as MessageRef));
    expect(refKeys.length).toBeGreaterThan(0);
    for (const type of LIFECYCLE_TYPES) {
      expect(dataSchemaOf(type)['required']).toEqual(expect.arrayContaining(refKeys));
      for (const data of dataOf<Record<string, unknown>>(type)) expect(Object.keys(data)).toEqual(expect.arrayContaining(refKeys));
    }
  });

  it('accepts every event the decider writes, with nullable fields null and set', () => {
    // The batches and the paths above do exercise both sides of each nullable field.
    expectNullAndValueSeen(dataOf('MessageQueued'), ['clientBatchId', 'clientMessageId', 'source', 'scheduled', 'expiry', 'dlrCallbackUrl']);
    const lifecycleData = LIFECYCLE_TYPES.flatMap((type) => dataOf<Record<string, unknown>>(type));
    expectNullAndValueSeen(lifecycleData, ['clientBatchId', 'clientMessageId', 'source', 'dlrCallbackUrl']);
    expectNullAndValueSeen(dataOf('MessageUndelivered'), ['errorCode', 'errorMessage', 'receipt']);
    expectNullAndValueSeen(dataOf('MessageRouted'), ['routeId', 'price', 'detail']);
    expectNullAndValueSeen(dataOf('CarrierConfigured'), ['maxPerSecond', 'systemType']);
    expectNullAndValueSeen(dataOf('RouteConfigured'), ['price']);
    expectNullAndValueSeen(dataOf('InboundMessageReceived'), ['accountId', 'subAccountId', 'keyword', 'inboundWebhookUrl']);
    expectNullAndValueSeen([...dataOf('RecipientOptedOut'), ...dataOf('RecipientOptedIn')] as Record<string, unknown>[], ['keyword']);
    expectNullAndValueSeen(dataOf('NumberAssigned'), ['inboundWebhookUrl', 'helpText']);
    const receipts = [
      ...dataOf<MessageDeliveredV1>('MessageDelivered').flatMap((d) => d.receipts),
      ...dataOf<MessageUndeliveredV1>('MessageUndelivered').flatMap((d) => (d.receipt ? [d.receipt] : [])),
      ...dataOf<ReceiptRecordedV1>('ReceiptRecorded').map((d) => d.receipt),
    ];
    expectNullAndValueSeen(receipts as unknown as Record<string, unknown>[], ['submitDate', 'doneDate']);
    // Several parts, and a part the carrier gave no id for.
    expect(dataOf<MessageDeliveredV1>('MessageDelivered').some((d) => d.receipts.length > 1)).toBe(true);
    expect(lifecycleData.some((d) => Array.isArray(d['carrierMessageIds']) && d['carrierMessageIds'].includes(''))).toBe(true);
    for (const event of realEvents) expect(problems(payloadOf(event.type), event)).toEqual([]);
  });

  it('refuses what the types refuse, so the check above is not vacuous', () => {
    const queued = realEvents.find((e) => e.type === 'MessageQueued') as PublishedEvent;
    const data = queued.data as Record<string, unknown>;
    const { text: _text, ...withoutText } = data;
    const schema = payloadOf('MessageQueued');
    expect(problems(schema, { ...queued, data: withoutText })).toEqual(['$.data.text: missing']);
    expect(problems(schema, { ...queued, data: { ...data, priority: 1 } })).toEqual(['$.data.priority: not in the schema']);
    expect(problems(schema, { ...queued, data: { ...data, smsCount: '1' } })).toEqual(['$.data.smsCount: is string, expected integer']);
    expect(problems(schema, { ...queued, data: { ...data, encoding: 'AUTO' } })).toHaveLength(1);
    expect(problems(schema, { ...queued, type: 'MessageRejected' })).toHaveLength(1);
    expect(problems(schema, { ...queued, streamId: batchStreamId(BATCH_ID) })).toHaveLength(1);
    expect(problems(schema, { ...queued, occurredAt: '2030-01-15T11:00:00+01:00' })).toHaveLength(1);

    const delivered = realEvents.find((e) => e.type === 'MessageDelivered') as PublishedEvent;
    const deliveredData = delivered.data as MessageDeliveredV1;
    const [firstReceipt, ...otherReceipts] = deliveredData.receipts;
    const { stat: _stat, ...withoutStat } = firstReceipt as CarrierReceipt;
    const deliveredSchema = payloadOf('MessageDelivered');
    expect(problems(deliveredSchema, { ...delivered, data: { ...deliveredData, receipts: [withoutStat, ...otherReceipts] } })).toEqual(['$.data.receipts[0].stat: missing']);
    expect(problems(deliveredSchema, { ...delivered, data: { ...deliveredData, receipts: [] } })).toHaveLength(1);
    expect(problems(deliveredSchema, { ...delivered, streamPosition: 1 })).toHaveLength(1);
    const { smsCount: _smsCount, ...withoutSmsCount } = deliveredData;
    expect(problems(deliveredSchema, { ...delivered, data: withoutSmsCount })).toEqual(['$.data.smsCount: missing']);

    const failed = realEvents.find((e) => e.type === 'MessageUndelivered' && (e.data as MessageUndeliveredV1).receipt !== null) as PublishedEvent;
    const failedData = failed.data as MessageUndeliveredV1;
    const undeliveredSchema = payloadOf('MessageUndelivered');
    expect(problems(undeliveredSchema, { ...failed, data: { ...failedData, reason: 'timeout' } })).toHaveLength(1);
    expect(problems(undeliveredSchema, { ...failed, data: { ...failedData, receipt: { ...failedData.receipt, state: 'x' } } })).toHaveLength(1);
    expect(problems(undeliveredSchema, { ...failed, data: { ...failedData, receipt: 'UNDELIV' } })).toHaveLength(1);

    const recorded = realEvents.find((e) => e.type === 'ReceiptRecorded') as PublishedEvent;
    const recordedData = recorded.data as ReceiptRecordedV1;
    const recordedSchema = payloadOf('ReceiptRecorded');
    expect(problems(recordedSchema, { ...recorded, data: { ...recordedData, receipt: null } })).toEqual(['$.data.receipt: is null, expected object']);
    expect(problems(recordedSchema, { ...recorded, data: { ...recordedData, note: 'ignored' } })).toHaveLength(1);
  });

  it('lists the undelivered reasons and receipt notes the decider writes, no more', () => {
    const enumOf = (type: string, field: string): Json => deref(propertiesOf(dataSchemaOf(type))[field] as Schema)['enum'] as Json;
    expect(sorted(enumOf('MessageUndelivered', 'reason') as string[])).toEqual(sorted(new Set(dataOf<MessageUndeliveredV1>('MessageUndelivered').map((d) => d.reason))));
    expect(sorted(enumOf('ReceiptRecorded', 'note') as string[])).toEqual(sorted(new Set(dataOf<ReceiptRecordedV1>('ReceiptRecorded').map((d) => d.note))));
    expect(sorted(enumOf('MessageRouted', 'outcome') as string[])).toEqual(sorted(new Set(dataOf<MessageRoutedV1>('MessageRouted').map((d) => d.outcome))));
  });

  it('lists the inbound encodings, keywords and concatenation schemes and the opt-out sources the deciders write, no more', () => {
    const at = (schema: Schema, ...names: string[]): Schema => names.reduce((s, name) => deref(propertiesOf(s)[name] as Schema), schema);
    const seen = (values: unknown[]): unknown[] => [...new Set(values)].sort();
    const enumSeen = (schema: Schema, values: unknown[]) => expect(seen(schema['enum'] as unknown[])).toEqual(seen(values));
    const messages = dataOf<InboundMessageReceivedV1>('InboundMessageReceived');
    const parts = dataOf<InboundPartReceivedV1>('InboundPartReceived').map((d) => d.part);
    enumSeen(at(dataSchemaOf('InboundMessageReceived'), 'encoding'), messages.map((d) => d.encoding));
    // A message's encoding is its first part's.
    enumSeen(at(dataSchemaOf('InboundPartReceived'), 'part', 'encoding'), messages.map((d) => d.encoding));
    enumSeen(at(dataSchemaOf('InboundMessageReceived'), 'keyword'), messages.map((d) => d.keyword));
    enumSeen(at(dataSchemaOf('InboundPartReceived'), 'part', 'concatenation', 'scheme'), parts.map((p) => p.concatenation?.scheme));
    for (const type of OPT_OUT_TYPES) enumSeen(at(dataSchemaOf(type), 'source'), dataOf<RecipientOptedOutV1>(type).map((d) => d.source));
    expect(seen(messages.map((d) => d.incomplete))).toEqual([false, true]);
    expect(messages.some((d) => d.smsCount > 1)).toBe(true);
    // A single part is recorded as its message at once: a kept part always belongs to a concatenated message.
    expect(parts.every((p) => p.concatenation !== null)).toBe(true);
    const kept = realEvents.find((e) => e.type === 'InboundPartReceived') as PublishedEvent;
    const keptData = kept.data as InboundPartReceivedV1;
    expect(problems(payloadOf('InboundPartReceived'), { ...kept, data: { ...keptData, part: { ...keptData.part, concatenation: null } } })).toHaveLength(1);
    const message = realEvents.find((e) => e.type === 'InboundMessageReceived') as PublishedEvent;
    expect(problems(payloadOf('InboundMessageReceived'), { ...message, data: { ...(message.data as object), keyword: 'STOP' } })).toHaveLength(1);
    expect(problems(payloadOf('InboundMessageReceived'), { ...message, streamId: 'inbound-1' })).toHaveLength(1);
  });

  it('lists the encodings and the contract rejection descriptions of the code', () => {
    const schemas = doc['components'] as { schemas: Record<string, Schema> };
    expect(schemas.schemas['RejectionDescription']?.['enum']).toEqual(Object.values(RejectionDescription));
    expect(schemas.schemas['Encoding']?.['enum']).toEqual(['GSM7', 'UCS2']);
    const rejections = new Set(realEvents.filter((e) => e.type === 'MessageRejected').map((e) => (e.data as { description: string }).description));
    expect(rejections.size).toBe(Object.values(RejectionDescription).length - 1); // the decider never decides "Internal server error"
  });

  it('keys each message by its stream id, in the format of batchStreamId and messageStreamId', () => {
    for (const event of realEvents) {
      const key = (messageNamed(event.type)['bindings'] as { kafka: { key: Schema } }).kafka.key;
      expect(problems(key, event.streamId)).toEqual([]);
    }
    const batchKey = (messageNamed('BatchSubmitted')['bindings'] as { kafka: { key: Schema } }).kafka.key;
    expect(problems(batchKey, messageStreamId(BATCH_ID))).not.toEqual([]);
  });
});

describe('the documented examples are what the code produces', () => {
  const decided = published(decideSubmitBatch({ data: DOCUMENTED, batchId: BATCH_ID, umids: DOCUMENTED_UMIDS, now: NOW }, initialBatchState()));

  it.each(BATCH_TYPES)('%s: the AsyncAPI example is valid and its data is what the decider decides', (type) => {
    const examples = examplesOf(type);
    expect(examples.length).toBeGreaterThan(0);
    for (const { headers, payload } of examples) {
      expect(problems(payloadOf(type), payload)).toEqual([]);
      const real = decided.find((e) => e.streamId === payload.streamId);
      expect(payload.data).toEqual(real?.data);
      expect(payload.streamId).toBe(
        type === 'BatchSubmitted' ? batchStreamId(BATCH_ID) : messageStreamId((payload.data as { umid: string }).umid),
      );
      expectHeadersOf(type, headers, payload);
    }
  });

  const documentedQueued = decided.find((e) => e.type === 'MessageQueued') as PublishedEvent;

  it.each(LIFECYCLE_TYPES)('%s: every AsyncAPI example is valid and is what decideMessage writes for its documented path', (type) => {
    const examples = examplesOf(type);
    expect(examples.length).toBeGreaterThan(0);
    for (const { name, headers, payload } of examples) {
      expect({ name, documented: name in DOCUMENTED_LIFECYCLE }).toEqual({ name, documented: true });
      // The path's last event of this type: a hand-off writes MessageRouted and MessageSent together.
      const real = lifecycle(documentedQueued, DOCUMENTED_LIFECYCLE[name] as MessageCommand[])
        .filter((e) => e.type === type)
        .at(-1);
      expect(real?.type).toBe(type);
      expect(payload.data).toEqual(real?.data);
      expect(payload.streamId).toBe(real?.streamId);
      expect(payload.streamPosition).toBe(real?.streamPosition);
      expect(problems(payloadOf(type), payload)).toEqual([]);
      expect(payload).toMatchObject({ correlationId: 'carrier', causationId: null, traceparent: null });
      expectHeadersOf(type, headers, payload);
    }
  });

  it.each(CONFIG_TYPES)('%s: every AsyncAPI example is the documented carriers-and-routes sequence as published', (type) => {
    const documented = documentedConfigEvents();
    const examples = examplesOf(type);
    expect(examples.length).toBeGreaterThan(0);
    for (const { headers, payload } of examples) {
      const real = documented.find((e) => e.streamPosition === payload.streamPosition);
      expect(real?.type).toBe(type);
      expect(payload).toEqual(real);
      expect(problems(payloadOf(type), payload)).toEqual([]);
      expectHeadersOf(type, headers, payload);
    }
    // Published without the sealed password, whatever the document's example says.
    expect(JSON.stringify(documented)).not.toContain('sealed');
  });

  it.each(TWO_WAY_TYPES)('%s: every AsyncAPI example is the documented numbers, inbound and opt-out sequence as published', (type) => {
    const documented = documentedTwoWayEvents();
    const examples = examplesOf(type);
    expect(examples.length).toBeGreaterThan(0);
    for (const { headers, payload } of examples) {
      const real = documented.find((e) => e.streamId === payload.streamId && e.streamPosition === payload.streamPosition);
      expect(real?.type).toBe(type);
      expect(payload).toEqual(real);
      expect(problems(payloadOf(type), payload)).toEqual([]);
      expectHeadersOf(type, headers, payload);
    }
  });

  it('docs/events.md gives the detail texts and error messages the decider writes', () => {
    const undelivered = dataOf<MessageUndeliveredV1>('MessageUndelivered');
    const expired = undelivered.find((d) => d.reason === 'expired');
    expect(eventsMd).toContain(`\`${expired?.detail}\``);
    const refused = undelivered.find((d) => d.reason === 'carrier-rejected');
    expect(refused?.detail).toBe(`submit_sm refused: ${refused?.errorCode}`);
    expect(eventsMd).toContain('`submit_sm refused: <errorCode>`');
    const noRoute = undelivered.find((d) => d.reason === 'no-route');
    expect(noRoute?.errorCode).toBe(NO_ROUTE_ERROR_CODE);
    expect(eventsMd).toContain(`| \`no-route\` |`);
    expect(eventsMd).toContain(`\`${NO_ROUTE_ERROR_CODE}\``);
    for (const [stat, message] of Object.entries(FAILURE_STAT_MESSAGES)) expect(eventsMd).toContain(`| \`${stat}\` | \`${message}\` |`);
    const statsThatEnd = new Set(undelivered.filter((d) => d.reason === 'receipt').map((d) => d.detail));
    expect([...statsThatEnd].every((stat) => stat in FAILURE_STAT_MESSAGES)).toBe(true);
  });

  it('docs/events.md shows the inbound_message_received webhook body of the InboundMessageReceived example', () => {
    const { umid, subAccountId, source, destination, body, encoding, smsCount, incomplete, receivedAt } = examplesOf('InboundMessageReceived')[0]?.payload.data as InboundMessageReceivedV1;
    const blocks = [...eventsMd.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1] as string) as Record<string, unknown>);
    const webhook = blocks.find((b) => b['eventType'] === 'inbound_message_received');
    expect(webhook?.['payload']).toEqual({ umid, subAccountId, source, destination, body, encoding, smsCount, timestamp: receivedAt, incomplete });
  });

  it('the JSON event examples in docs/events.md are the AsyncAPI examples', () => {
    const blocks = [...eventsMd.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1] as string) as Record<string, unknown>);
    const events = blocks.filter((b) => typeof b['eventId'] === 'string');
    expect(sorted(events.map((e) => String(e['type'])))).toEqual(eventTypes);
    for (const event of events) expect(event).toEqual(examplesOf(String(event['type']))[0]?.payload);
  });
});
