import {
  QUEUED_DESCRIPTION,
  RejectionDescription,
  type BatchSubmittedV1,
  type MessageQueuedV1,
  type MessageRejectedV1,
} from '@seed/sms-batch-contracts';
import { toBatchResponse, type FirstMessageEvent } from './batch-response';

const BATCH_ID = '5b1d2c3e-0000-4000-8000-000000000001';
const UMIDS = ['00000000-0000-4000-8000-000000000000', '00000000-0000-4000-8000-000000000001'] as const;
const AT = '2030-01-15T10:00:00.000Z';

const batch = (extra: Partial<BatchSubmittedV1> = {}): BatchSubmittedV1 => ({
  batchId: BATCH_ID,
  clientBatchId: 'order-42',
  accountId: 'acme',
  subAccountId: 'acme_hq',
  acceptedCount: 1,
  rejectedCount: 1,
  umids: [...UMIDS],
  submittedAt: AT,
  ...extra,
});

const identity = (index: number, clientMessageId: string | null) => ({
  umid: UMIDS[index] as string,
  batchId: BATCH_ID,
  clientBatchId: 'order-42',
  clientMessageId,
  accountId: 'acme',
  subAccountId: 'acme_hq',
  index,
});

const queued = (clientMessageId: string | null = 'm-1'): FirstMessageEvent => ({
  type: 'MessageQueued',
  data: {
    ...identity(0, clientMessageId),
    destination: '447911123456',
    source: 'ACME',
    text: 'Привет',
    encoding: 'UCS2',
    smsCount: 1,
    scheduled: null,
    expiry: null,
    dlrCallbackUrl: 'https://hooks.example.com/dlr',
    queuedAt: AT,
  } satisfies MessageQueuedV1,
});

const rejected = (clientMessageId: string | null = 'm-2'): FirstMessageEvent => ({
  type: 'MessageRejected',
  data: {
    ...identity(1, clientMessageId),
    destination: '+44 not a number',
    source: null,
    encoding: 'GSM7',
    smsCount: 1,
    dlrCallbackUrl: null,
    description: RejectionDescription.InvalidMsisdn,
    rejectedAt: AT,
  } satisfies MessageRejectedV1,
});

describe('toBatchResponse', () => {
  it('answers batchId, clientBatchId and the counts, without messages when they were not asked for', () => {
    const response = toBatchResponse(batch(), [queued(), rejected()], false);
    expect(response).toEqual({ batchId: BATCH_ID, clientBatchId: 'order-42', acceptedCount: 1, rejectedCount: 1 });
    expect(Object.keys(response)).toEqual(['batchId', 'clientBatchId', 'acceptedCount', 'rejectedCount']);
  });

  it('leaves clientBatchId out, rather than null, when the request had none', () => {
    const response = toBatchResponse(batch({ clientBatchId: null }), [], false);
    expect(response).toEqual({ batchId: BATCH_ID, acceptedCount: 1, rejectedCount: 1 });
    expect(response).not.toHaveProperty('clientBatchId');
  });

  it('keeps an empty clientBatchId, which is a value', () => {
    expect(toBatchResponse(batch({ clientBatchId: '' }), [], false)).toHaveProperty('clientBatchId', '');
  });

  it('takes the counts from the batch event as recorded', () => {
    expect(toBatchResponse(batch({ acceptedCount: 9998, rejectedCount: 2 }), [], false)).toMatchObject({
      acceptedCount: 9998,
      rejectedCount: 2,
    });
  });

  it('lists one entry per message, in the order given, with the contract fields when asked for', () => {
    const response = toBatchResponse(batch(), [queued(), rejected()], true);
    expect(response).toEqual({
      batchId: BATCH_ID,
      clientBatchId: 'order-42',
      acceptedCount: 1,
      rejectedCount: 1,
      messages: [
        {
          umid: UMIDS[0],
          clientMessageId: 'm-1',
          destination: '447911123456',
          encoding: 'UCS2',
          status: { code: 'QUEUED', description: QUEUED_DESCRIPTION },
        },
        {
          umid: UMIDS[1],
          clientMessageId: 'm-2',
          destination: '+44 not a number',
          encoding: 'GSM7',
          status: { code: 'REJECTED', description: 'Invalid MSISDN format (not E.164 international number)' },
        },
      ],
    });
    expect(Object.keys(response)).toEqual(['batchId', 'clientBatchId', 'acceptedCount', 'rejectedCount', 'messages']);
  });

  it('leaves clientMessageId out of a message that had none', () => {
    const [withoutQueued, withoutRejected] = toBatchResponse(batch(), [queued(null), rejected(null)], true).messages ?? [];
    expect(withoutQueued).not.toHaveProperty('clientMessageId');
    expect(withoutRejected).not.toHaveProperty('clientMessageId');
    expect(Object.keys(withoutQueued ?? {})).toEqual(['umid', 'destination', 'encoding', 'status']);
  });

  it('answers an empty list when messages were asked for and there are none', () => {
    expect(toBatchResponse(batch(), [], true).messages).toEqual([]);
  });

  it('carries nothing of the events beyond the contract fields (no text, source, account or timestamps)', () => {
    const [entry] = toBatchResponse(batch(), [queued()], true).messages ?? [];
    expect(Object.keys(entry ?? {}).sort()).toEqual(['clientMessageId', 'destination', 'encoding', 'status', 'umid']);
    expect(Object.keys(entry?.status ?? {}).sort()).toEqual(['code', 'description']);
  });

  it('reports each of the contract rejection descriptions as it was recorded', () => {
    for (const description of Object.values(RejectionDescription)) {
      const event = rejected();
      const [entry] =
        toBatchResponse(batch(), [{ type: 'MessageRejected', data: { ...(event.data as MessageRejectedV1), description } }], true).messages ?? [];
      expect(entry?.status).toEqual({ code: 'REJECTED', description });
    }
  });
});
