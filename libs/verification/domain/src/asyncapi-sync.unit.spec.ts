import { AsyncApiDocument, type Schema } from '@seed/platform-testing';
import { PRIVATE_STARTED_FIELDS, VERIFICATION_EVENT_TOPIC, verificationStreamId, type VerificationEvent } from '@seed/verification-contracts';
import { decideVerification, foldVerification, type VerificationCommand } from './verification.decider';
import { redactedText, settingsOf } from './verification-text';

/*
 * docs/asyncapi.json (channel verificationEvents) and docs/events.md are what subscribers code
 * against: this keeps them in step with the events the real decider writes, in the form the
 * relay publishes them (VerificationStarted without its private fields).
 */

const { doc, eventsMd, deref, problems } = new AsyncApiDocument();

// --- every event the decider writes, through the lives a verification can have ---
const T0 = new Date('2030-01-15T10:00:00.000Z');
const at = (s: number) => new Date(T0.getTime() + s * 1000);
const start = (uid: string, brand?: string): VerificationCommand => {
  const settings = settingsOf(brand ? { brand } : {});
  return {
    type: 'Start',
    uid,
    accountId: 'acme',
    subAccountId: 'acme_hq',
    msisdn: '447911123456',
    settings,
    codeHash: 'ab'.repeat(32),
    codeHashKeyId: 'k1',
    sealedText: 'sealed.v1.k1.aaaa.bbbb',
    redactedText: redactedText(settings),
    now: T0,
  };
};
const check = (s: number, matches: boolean): VerificationCommand => ({ type: 'CheckCode', codeLength: 6, matches, now: at(s) });
const queued = (sendNumber: number): VerificationCommand => ({
  type: 'RecordSms',
  sendNumber,
  outcome: { batchId: '0193f0c2-4e01-7a2b-8c3d-4e5f6a7b8c9d', umid: '0193f0c2-4e01-7b3c-9d4e-5f6a7b8c9d0e' },
});
function run(commands: VerificationCommand[]): VerificationEvent[] {
  const events: VerificationEvent[] = [];
  for (const command of commands) events.push(...decideVerification(command, foldVerification(events)));
  return events;
}
const LIVES: Record<string, VerificationCommand[]> = {
  '0193f0c2-4d5e-7f60-8a1b-2c3d4e5f6a01': [start('0193f0c2-4d5e-7f60-8a1b-2c3d4e5f6a01', 'ACME'), queued(1), { type: 'Resend', now: at(40) }, queued(2), check(50, false), check(60, true)],
  '0193f0c2-4d5e-7f60-8a1b-2c3d4e5f6a02': [start('0193f0c2-4d5e-7f60-8a1b-2c3d4e5f6a02'), { type: 'RecordSms', sendNumber: 1, outcome: { description: 'Internal server error' } }, ...[1, 2, 3, 4, 5].map((s) => check(s, false))],
  '0193f0c2-4d5e-7f60-8a1b-2c3d4e5f6a03': [start('0193f0c2-4d5e-7f60-8a1b-2c3d4e5f6a03'), check(301, true)],
  '0193f0c2-4d5e-7f60-8a1b-2c3d4e5f6a04': [start('0193f0c2-4d5e-7f60-8a1b-2c3d4e5f6a04'), { type: 'Reset', now: at(31) }],
};
const published = Object.entries(LIVES).flatMap(([uid, commands]) =>
  run(commands).map((event, i) => {
    const data = { ...(event.data as unknown as Record<string, unknown>) };
    if (event.type === 'VerificationStarted') for (const field of PRIVATE_STARTED_FIELDS) delete data[field];
    return {
      eventId: '5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b',
      type: event.type,
      schemaVersion: event.schemaVersion,
      streamId: verificationStreamId(uid),
      streamPosition: i + 1,
      globalPosition: '1042',
      occurredAt: T0.toISOString(),
      correlationId: 'e2b7c1d4-6a5f-4e3d-9c2b-1a0f9e8d7c6b',
      causationId: null,
      traceparent: null,
      data,
    };
  }),
);
const TYPES = [
  'VerificationCodeRejected',
  'VerificationExpired',
  'VerificationFailed',
  'VerificationResent',
  'VerificationSmsQueued',
  'VerificationSmsRejected',
  'VerificationStarted',
  'VerificationVerified',
];

const channel = (doc['channels'] as Record<string, Schema>)['verificationEvents'] as Schema;
const message = (type: string): Schema => deref((channel['messages'] as Record<string, Schema>)[type] as Schema);

describe('docs/asyncapi.json matches the verification code', () => {
  it('describes the verification topic behind the installation prefix, with one message per event type the decider writes', () => {
    expect(channel['address']).toBe(`{topicPrefix}${VERIFICATION_EVENT_TOPIC}`);
    expect([...new Set(published.map((e) => e.type))].sort()).toEqual(TYPES);
    expect(Object.keys(channel['messages'] as object).sort()).toEqual(TYPES);
    for (const type of TYPES) expect(message(type)['name']).toBe(type);
  });

  it('has the operation that publishes exactly those messages on that channel', () => {
    const operation = (doc['operations'] as Record<string, Schema>)['publishVerificationEvents'] as Schema;
    expect(operation).toMatchObject({ action: 'send', channel: { $ref: '#/channels/verificationEvents' } });
    expect((operation['messages'] as Schema[]).map((m) => String(deref(m)['name'])).sort()).toEqual(TYPES);
  });

  it.each(TYPES)('%s: the data schema requires exactly the published fields, and allows no others', (type) => {
    const data = deref(deref(deref(message(type)['payload'] as Schema)['properties'] as Schema)['data'] as Schema);
    for (const event of published.filter((e) => e.type === type)) expect([...(data['required'] as string[])].sort()).toEqual(Object.keys(event.data).sort());
    expect(Object.keys(data['properties'] as object).sort()).toEqual([...(data['required'] as string[])].sort());
    expect(data['additionalProperties']).toBe(false);
  });

  it('accepts every published event, and refuses one with a code hash or a wrong key', () => {
    for (const event of published) expect(problems(message(event.type)['payload'] as Schema, event)).toEqual([]);
    const started = published[0] as (typeof published)[number];
    expect(problems(message('VerificationStarted')['payload'] as Schema, { ...started, data: { ...started.data, codeHash: 'ab' } })).not.toEqual([]);
    expect(problems(message('VerificationStarted')['payload'] as Schema, { ...started, streamId: 'verify-1' })).not.toEqual([]);
  });

  it.each(TYPES)('%s: the example is valid, and its data is the example on docs/events.md', (type) => {
    const [example] = message(type)['examples'] as { payload: { data: object }; headers: Schema }[];
    expect(problems(message(type)['payload'] as Schema, example?.payload)).toEqual([]);
    expect(problems(message(type)['headers'] as Schema, example?.headers)).toEqual([]);
    const blocks = [...eventsMd.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1] as string) as object);
    expect(blocks).toContainEqual(example?.payload.data);
  });
});
