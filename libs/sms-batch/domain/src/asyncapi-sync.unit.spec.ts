import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MessageHeader, type EventEnvelope, type NewEvent } from '@seed/contracts';
import {
  batchStreamId,
  messageStreamId,
  RejectionDescription,
  SMS_BATCH_EVENT_TOPIC,
  type SubmitBatchData,
} from '@seed/sms-batch-contracts';
import { decideSubmitBatch, initialBatchState, type DecidedBatch } from './batch-submission.decider';

/*
 * docs/asyncapi.json and docs/events.md are what outside subscribers code against. This spec keeps
 * them in step with the code: the topic constant, the event types and versions the real decider
 * produces, every data field it writes, the envelope type, and the documented examples.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [key: string]: Json };

const ROOT = join(__dirname, '../../../..');
const doc = JSON.parse(readFileSync(join(ROOT, 'docs/asyncapi.json'), 'utf8')) as Schema;
const eventsMd = readFileSync(join(ROOT, 'docs/events.md'), 'utf8');

// --- a small JSON Schema reader: enough of draft-07 for the keywords docs/asyncapi.json uses ---

function resolve(ref: string): Schema {
  if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported: ${ref}`);
  let node: Json = doc;
  for (const segment of ref.slice(2).split('/')) {
    const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || Array.isArray(node) || !(key in node)) throw new Error(`unresolved $ref ${ref}`);
    node = node[key] as Json;
  }
  return deref(node as Schema);
}

/** As in draft-07, a $ref replaces its schema (sibling keywords are ignored). */
function deref(schema: Schema): Schema {
  return typeof schema['$ref'] === 'string' ? resolve(schema['$ref']) : schema;
}

const typeOf = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;

const FORMATS: Record<string, (value: string) => boolean> = {
  uuid: (v) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v),
  'date-time': (v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(v) && !Number.isNaN(Date.parse(v)),
};

/** Every way `value` breaks `schema`, as `path: problem` lines; empty when it conforms. */
function problems(schemaOrRef: Schema, value: unknown, path = '$'): string[] {
  const schema = deref(schemaOrRef);
  const found: string[] = [];
  const actual = typeOf(value);
  if (schema['type'] !== undefined) {
    const allowed = ([] as Json[]).concat(schema['type']) as string[];
    const matches = allowed.includes(actual) || (actual === 'integer' && allowed.includes('number'));
    if (!matches) return [`${path}: is ${actual}, expected ${allowed.join(' or ')}`];
  }
  if ('const' in schema && value !== schema['const']) found.push(`${path}: is ${JSON.stringify(value)}, expected ${JSON.stringify(schema['const'])}`);
  if (Array.isArray(schema['enum']) && !schema['enum'].includes(value as Json)) found.push(`${path}: ${JSON.stringify(value)} is not in the enum`);
  if (typeof value === 'string') {
    if (typeof schema['minLength'] === 'number' && [...value].length < schema['minLength']) found.push(`${path}: shorter than ${schema['minLength']}`);
    if (typeof schema['pattern'] === 'string' && !new RegExp(schema['pattern'], 'u').test(value)) found.push(`${path}: does not match ${schema['pattern']}`);
    const format = typeof schema['format'] === 'string' ? FORMATS[schema['format']] : undefined;
    if (format && !format(value)) found.push(`${path}: not a ${String(schema['format'])}`);
  }
  if (typeof value === 'number') {
    if (typeof schema['minimum'] === 'number' && value < schema['minimum']) found.push(`${path}: below ${schema['minimum']}`);
    if (typeof schema['maximum'] === 'number' && value > schema['maximum']) found.push(`${path}: above ${schema['maximum']}`);
  }
  if (Array.isArray(value)) {
    if (typeof schema['minItems'] === 'number' && value.length < schema['minItems']) found.push(`${path}: fewer than ${schema['minItems']} items`);
    if (typeof schema['maxItems'] === 'number' && value.length > schema['maxItems']) found.push(`${path}: more than ${schema['maxItems']} items`);
    const items = schema['items'] as Schema | undefined;
    if (items) value.forEach((item, i) => found.push(...problems(items, item, `${path}[${i}]`)));
  }
  if (actual === 'object') {
    const object = value as Record<string, unknown>;
    const properties = (schema['properties'] ?? {}) as Record<string, Schema>;
    for (const name of (schema['required'] ?? []) as string[]) if (!(name in object)) found.push(`${path}.${name}: missing`);
    for (const [name, child] of Object.entries(object)) {
      const property = properties[name];
      if (property) found.push(...problems(property, child, `${path}.${name}`));
      else if (schema['additionalProperties'] === false) found.push(`${path}.${name}: not in the schema`);
    }
  }
  return found;
}

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
const realEvents = [...published(decide(VARIED)), ...published(decide(variedWithClientBatchId))];
const eventTypes = sorted(new Set(realEvents.map((e) => e.type)));

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

interface Example {
  headers: Record<string, string>;
  payload: PublishedEvent;
}
const examplesOf = (type: string): Example[] => (messageNamed(type)['examples'] ?? []) as unknown as Example[];

describe('docs/asyncapi.json matches the code', () => {
  it('describes the sms-batch event topic, behind the installation prefix', () => {
    expect(doc['asyncapi']).toMatch(/^3\.0\.\d+$/);
    expect(channel['address']).toBe(`{topicPrefix}${SMS_BATCH_EVENT_TOPIC}`);
    expect((channel['parameters'] as Record<string, Schema>)['topicPrefix']).toMatchObject({ default: '' });
  });

  it('carries exactly the event types the decider produces, each as a message of that name', () => {
    expect(eventTypes).toEqual(['BatchSubmitted', 'MessageQueued', 'MessageRejected']);
    expect(sorted(channelMessages.map((m) => String(m['name'])))).toEqual(eventTypes);
    const operations = Object.values(doc['operations'] as Record<string, Schema>);
    const published = operations.flatMap((o) => (o['messages'] as Schema[]).map((m) => String(deref(m)['name'])));
    expect(sorted(published)).toEqual(eventTypes);
  });

  it.each(['BatchSubmitted', 'MessageQueued', 'MessageRejected'])('%s: type and schemaVersion are those the decider writes', (type) => {
    const versions = new Set(realEvents.filter((e) => e.type === type).map((e) => e.schemaVersion));
    const properties = propertiesOf(payloadOf(type));
    expect(properties['type']).toMatchObject({ const: type });
    expect([...versions]).toEqual([deref(properties['schemaVersion'] as Schema)['const']]);
  });

  it.each(['BatchSubmitted', 'MessageQueued', 'MessageRejected'])(
    '%s: the data schema requires exactly the fields the decider writes, and allows no others',
    (type) => {
      const schema = dataSchemaOf(type);
      const written = realEvents.filter((e) => e.type === type).map((e) => sorted(Object.keys(e.data as object)));
      expect(written.length).toBeGreaterThan(0);
      for (const keys of written) expect(sorted(schema['required'] as string[])).toEqual(keys);
      expect(sorted(Object.keys(schema['properties'] as object))).toEqual(sorted(schema['required'] as string[]));
      expect(schema['additionalProperties']).toBe(false);
    },
  );

  it.each(['BatchSubmitted', 'MessageQueued', 'MessageRejected'])(
    '%s: the envelope schema has the fields of EventEnvelope, all required but globalPosition',
    (type) => {
      const payload = payloadOf(type);
      const envelopeFields = sorted(Object.keys(realEvents[0] as PublishedEvent));
      expect(sorted(Object.keys(payload['properties'] as object))).toEqual(envelopeFields);
      expect(sorted(payload['required'] as string[])).toEqual(envelopeFields.filter((f) => f !== 'globalPosition'));
      expect(payload['additionalProperties']).toBe(false);
    },
  );

  it('accepts every event the decider writes, with nullable fields null and set', () => {
    const byType = (type: string) => realEvents.filter((e) => e.type === type);
    const queued = byType('MessageQueued').map((e) => e.data as Record<string, unknown>);
    // The batch above does exercise both sides of each nullable field.
    for (const field of ['clientBatchId', 'clientMessageId', 'source', 'scheduled', 'expiry', 'dlrCallbackUrl']) {
      expect({ field, nullSeen: queued.some((d) => d[field] === null), valueSeen: queued.some((d) => d[field] !== null) }).toEqual({
        field,
        nullSeen: true,
        valueSeen: true,
      });
    }
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

  it.each(['BatchSubmitted', 'MessageQueued', 'MessageRejected'])('%s: the AsyncAPI example is valid and its data is what the decider decides', (type) => {
    const examples = examplesOf(type);
    expect(examples.length).toBeGreaterThan(0);
    for (const { headers, payload } of examples) {
      expect(problems(payloadOf(type), payload)).toEqual([]);
      const real = decided.find((e) => e.streamId === payload.streamId);
      expect(payload.data).toEqual(real?.data);
      expect(payload.streamId).toBe(
        type === 'BatchSubmitted' ? batchStreamId(BATCH_ID) : messageStreamId((payload.data as { umid: string }).umid),
      );
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
  });

  it('the JSON event examples in docs/events.md are the AsyncAPI examples', () => {
    const blocks = [...eventsMd.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1] as string) as Record<string, unknown>);
    const events = blocks.filter((b) => typeof b['eventId'] === 'string');
    expect(sorted(events.map((e) => String(e['type'])))).toEqual(eventTypes);
    for (const event of events) expect(event).toEqual(examplesOf(String(event['type']))[0]?.payload);
  });
});
