import type { DeliveryStatusWebhook } from '@seed/webhook-dispatcher-contracts';
import type { MessageRef } from '@seed/sms-batch-contracts';
import { STATUS_CHANGE_TYPES, statusChangeOf, type SourceEvent } from './status-change';

const REF: MessageRef = {
  umid: 'u-1',
  batchId: 'b-1',
  clientBatchId: 'cb',
  clientMessageId: 'cm',
  accountId: 'acme',
  subAccountId: 'acme_hq',
  destination: '447911123456',
  source: 'ACME',
  smsCount: 1,
  dlrCallbackUrl: 'https://hooks.example.com/dlr',
};
const at = '2030-01-15T10:00:01.000Z';
const event = (type: string, data: object, streamPosition = 2): SourceEvent => ({ eventId: 'e', type, streamId: 'sms-message-u-1', streamPosition, occurredAt: at, data });

describe('status changes that become webhooks', () => {
  it('maps MessageSent to the product-decisions body', () => {
    expect(statusChangeOf(event('MessageSent', { ...REF, carrierMessageIds: ['1'], sentAt: at }))).toEqual({
      umid: 'u-1',
      accountId: 'acme',
      sequence: 2,
      dlrCallbackUrl: 'https://hooks.example.com/dlr',
      body: {
        namespace: 'SMS',
        eventType: 'outbound_message_status_changed',
        description: 'Outbound message status changed',
        payload: {
          umid: 'u-1',
          batchId: 'b-1',
          clientMessageId: 'cm',
          clientBatchId: 'cb',
          subAccountId: 'acme_hq',
          source: 'ACME',
          destination: '447911123456',
          smsCount: 1,
          status: { state: 'sent', detail: 'SMS is handed to the carrier', timestamp: at, errorCode: null, errorMessage: null },
        },
      },
    });
  });

  it('carries the error of an undelivered message and the description of a rejected one', () => {
    const undelivered = statusChangeOf(
      event('MessageUndelivered', { ...REF, reason: 'receipt', detail: 'UNDELIV', errorCode: '001', errorMessage: 'Message is undeliverable', receipt: null, undeliveredAt: at }, 3),
    );
    expect((undelivered?.body as DeliveryStatusWebhook).payload.status).toEqual({ state: 'undelivered', detail: 'UNDELIV', timestamp: at, errorCode: '001', errorMessage: 'Message is undeliverable' });
    const rejected = statusChangeOf(event('MessageRejected', { ...REF, dlrCallbackUrl: null, description: 'Text value is missing', index: 0, encoding: 'GSM7', rejectedAt: at }, 1));
    expect(rejected).toMatchObject({ sequence: 1, dlrCallbackUrl: null, body: { payload: { status: { state: 'rejected', detail: 'Text value is missing' } } } });
    expect((statusChangeOf(event('MessageDelivered', { ...REF, receipts: [], deliveredAt: at }))?.body as DeliveryStatusWebhook).payload.status.state).toBe('delivered');
  });

  it('posts an inbound message to one of an account\'s numbers to the number\'s URL, in the inbound body of the product decisions', () => {
    const received = { umid: 'u-in', accountId: 'acme', subAccountId: 'acme_hq', source: '447700900123', destination: '447700100100', body: 'Hello 😀', encoding: 'UCS2', smsCount: 2, incomplete: false, keyword: null, inboundWebhookUrl: 'https://hooks.example.com/in', carrierId: 'default', receivedAt: at };
    expect(statusChangeOf(event('InboundMessageReceived', received, 2))).toEqual({
      umid: 'u-in',
      accountId: 'acme',
      sequence: 2,
      dlrCallbackUrl: 'https://hooks.example.com/in',
      body: {
        namespace: 'SMS',
        eventType: 'inbound_message_received',
        description: 'Inbound message received',
        payload: { umid: 'u-in', subAccountId: 'acme_hq', source: '447700900123', destination: '447700100100', body: 'Hello 😀', encoding: 'UCS2', smsCount: 2, timestamp: at, incomplete: false },
      },
    });
    // To a number of no account: recorded by sms-batch, posted nowhere.
    expect(statusChangeOf(event('InboundMessageReceived', { ...received, accountId: null, subAccountId: null }))).toBeNull();
  });

  it.each(['MessageQueued', 'BatchSubmitted', 'ReceiptRecorded', 'SomethingNew'])('sends nothing for %s', (type) => {
    expect(statusChangeOf(event(type, REF))).toBeNull();
  });
});

describe('the status-change types the intake reads', () => {
  it('are exactly the sms-batch event types that become a status change (the others are passed over unread)', () => {
    const all = ['BatchSubmitted', 'MessageQueued', 'MessageRejected', 'MessageSent', 'MessageDelivered', 'MessageUndelivered', 'ReceiptRecorded', 'InboundPartReceived', 'InboundMessageReceived'];
    const data = { ...REF, description: 'd', detail: 'd', errorCode: null, errorMessage: null, carrierMessageIds: ['1'], sentAt: at, deliveredAt: at, subAccountId: 'acme_hq', inboundWebhookUrl: null };
    const changing = all.filter((type) => statusChangeOf(event(type, data)) !== null);
    expect(changing.sort()).toEqual([...STATUS_CHANGE_TYPES].sort());
  });
});
