import type { StoredEvent } from '@seed/platform-event-store';
import { SMS_BATCH_PUBLIC_SHAPE, toPublicSmsBatchEvent } from './public-events';

const stored = (type: string, data: object): StoredEvent => ({
  eventId: '0190f1a2-0000-7000-8000-000000000001',
  type,
  schemaVersion: 1,
  streamId: 'sms-message-0190f1a2-0000-7000-8000-000000000002',
  streamPosition: 1,
  globalPosition: '10',
  transactionId: '99',
  occurredAt: '2030-01-15T10:00:00.000Z',
  correlationId: 'c',
  causationId: null,
  traceparent: null,
  data,
});

describe('toPublicSmsBatchEvent', () => {
  it('publishes a sealed message with its redacted text only', () => {
    const published = toPublicSmsBatchEvent(stored('MessageQueued', { umid: 'u', text: 'Your code is ******', sealedText: 'sealed.v1.k1.iv.body' }));
    expect(published.data).toEqual({ umid: 'u', text: 'Your code is ******' });
    expect(JSON.stringify(published)).not.toContain('sealed.v1');
    expect(published).not.toHaveProperty('transactionId');
  });

  it('publishes a carrier without its sealed password', () => {
    const carrier = { carrierId: 'a', host: 'smsc.example', systemId: 'seed', sealedPassword: 'sealed.v1.k1.iv.body', binds: 2 };
    const published = toPublicSmsBatchEvent({ ...stored('CarrierConfigured', carrier), streamId: 'routing-config' });
    expect(published.data).toEqual({ carrierId: 'a', host: 'smsc.example', systemId: 'seed', binds: 2 });
    expect(JSON.stringify(published)).not.toContain('sealed.v1');
    // The relay passes the bodies of types it is not told of on unparsed: it must be told of this one.
    expect(SMS_BATCH_PUBLIC_SHAPE.reshaped).toEqual(expect.arrayContaining(['MessageQueued', 'CarrierConfigured']));
  });

  it('publishes every other event as it is stored, without the store fields', () => {
    const data = { umid: 'u', carrierMessageIds: ['1f'] };
    expect(toPublicSmsBatchEvent(stored('MessageSent', data))).toMatchObject({ type: 'MessageSent', data, streamPosition: 1 });
    expect(toPublicSmsBatchEvent(stored('MessageQueued', { umid: 'u', text: 'Hello' })).data).toEqual({ umid: 'u', text: 'Hello' });
  });
});
