import { ApiErrorCode } from '@seed/contracts';
import { RejectionDescription, type SmsBatchItem, type SubmitBatchData } from '@seed/sms-batch-contracts';
import {
  BatchRejectedError,
  type BatchState,
  type DecidedBatch,
  decideSubmitBatch,
  evolveBatch,
  initialBatchState,
  type MessageEvent,
  type SubmitBatchDecision,
} from './batch-submission.decider';

const NOW = '2030-01-15T10:00:00.000Z';
const BATCH_ID = '7d3f6c1e-0000-4000-8000-000000000001';
const umid = (index: number): string => `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`;

const batch = (messages: SmsBatchItem[], extra: Partial<SubmitBatchData> = {}): SubmitBatchData => ({
  accountId: 'acme',
  subAccountId: 'acme_hq',
  includeMessagesInResponse: true,
  messages,
  ...extra,
});

const command = (data: SubmitBatchData, now = NOW): SubmitBatchDecision => ({
  data,
  batchId: BATCH_ID,
  umids: data.messages.map((_, index) => umid(index)),
  now,
});

// given / when / then
const given = (...events: { type: string; data: unknown }[]): BatchState => events.reduce(evolveBatch, initialBatchState());
const when = (state: BatchState, decision: SubmitBatchDecision): DecidedBatch => decideSubmitBatch(decision, state);
const onlyEvent = (decided: DecidedBatch, index = 0): MessageEvent => {
  const events = decided.messages[index]?.events ?? [];
  expect(events).toHaveLength(1);
  return events[0] as MessageEvent;
};
const descriptionOf = (event: MessageEvent): string | null =>
  event.type === 'MessageRejected' ? event.data.description : null;
const decideOne = (item: SmsBatchItem, extra: Partial<SubmitBatchData> = {}): MessageEvent =>
  onlyEvent(when(given(), command(batch([item], extra))));

describe('decideSubmitBatch', () => {
  describe('given a new batch', () => {
    it('when a valid message is submitted, then the batch is submitted and the message queued', () => {
      const decided = when(
        given(),
        command(
          batch([{ destination: '+44 7400 123456', clientMessageId: 'm-1', text: 'Hello {name}' }], {
            clientBatchId: 'client-batch-1',
          }),
        ),
      );

      expect(decided).toEqual({
        batch: [
          {
            type: 'BatchSubmitted',
            schemaVersion: 1,
            data: {
              batchId: BATCH_ID,
              clientBatchId: 'client-batch-1',
              accountId: 'acme',
              subAccountId: 'acme_hq',
              acceptedCount: 1,
              rejectedCount: 0,
              umids: [umid(0)],
              submittedAt: NOW,
            },
          },
        ],
        messages: [
          {
            umid: umid(0),
            events: [
              {
                type: 'MessageQueued',
                schemaVersion: 1,
                data: {
                  umid: umid(0),
                  batchId: BATCH_ID,
                  clientBatchId: 'client-batch-1',
                  clientMessageId: 'm-1',
                  accountId: 'acme',
                  subAccountId: 'acme_hq',
                  index: 0,
                  destination: '447400123456',
                  source: null,
                  text: 'Hello {name}',
                  encoding: 'GSM7',
                  smsCount: 1,
                  scheduled: null,
                  expiry: null,
                  dlrCallbackUrl: null,
                  queuedAt: NOW,
                },
              },
            ],
          },
        ],
      });
    });

    it('when the template carries the common properties, then every message gets them', () => {
      const template = {
        text: 'Sale today ✓',
        source: 'ACME',
        encoding: 'AUTO' as const,
        scheduled: '2030-01-16T09:00:00Z',
        expiry: '2030-01-17T09:00:00+01:00',
        dlrCallbackUrl: 'https://hooks.example.com/dlr',
      };
      const decided = when(given(), command(batch([{ destination: '+4915123456789' }, { destination: '+919876543210' }], { template })));

      for (const message of decided.messages) {
        expect(message.events[0]).toMatchObject({
          type: 'MessageQueued',
          data: {
            text: 'Sale today ✓',
            source: 'ACME',
            encoding: 'UCS2',
            smsCount: 1,
            scheduled: '2030-01-16T09:00:00.000Z',
            expiry: '2030-01-17T08:00:00.000Z',
            dlrCallbackUrl: 'https://hooks.example.com/dlr',
          },
        });
      }
    });

    it('when an item sets a property, then it overrides the template for that item only', () => {
      const template = { text: 'Common', source: 'ACME', encoding: 'UCS2' as const, dlrCallbackUrl: 'https://a.example/dlr' };
      const decided = when(
        given(),
        command(
          batch(
            [
              {
                destination: '+447400123456',
                text: 'Own text',
                source: '447400000000',
                encoding: 'GSM7',
                scheduled: '2030-01-15T12:00:00.000Z',
                expiry: '2030-01-15T13:00:00.000Z',
                dlrCallbackUrl: 'https://b.example/dlr',
              },
              { destination: '+447400123457' },
            ],
            { template },
          ),
        ),
      );

      expect(onlyEvent(decided, 0).data).toMatchObject({
        text: 'Own text',
        source: '447400000000',
        encoding: 'GSM7',
        scheduled: '2030-01-15T12:00:00.000Z',
        expiry: '2030-01-15T13:00:00.000Z',
        dlrCallbackUrl: 'https://b.example/dlr',
      });
      expect(onlyEvent(decided, 1).data).toMatchObject({
        text: 'Common',
        source: 'ACME',
        encoding: 'UCS2',
        scheduled: null,
        expiry: null,
        dlrCallbackUrl: 'https://a.example/dlr',
      });
    });

    it('when the same destination comes with and without a country, then each is judged on its own', () => {
      const decided = when(
        given(),
        command(batch([{ destination: '447400123456', country: '', text: 'Hi' }, { destination: '447400123456', text: 'Hi' }])),
      );
      expect(descriptionOf(onlyEvent(decided, 0))).toBe(RejectionDescription.InvalidMsisdn);
      expect(onlyEvent(decided, 1).data.destination).toBe('447400123456');
    });

    it('when the destination is national with a country, then it is queued in E.164 digits', () => {
      expect(decideOne({ destination: '07911 123456', country: 'GB', text: 'Hi' }).data.destination).toBe('447911123456');
    });

    it('when GSM7 is forced on text outside the alphabet, then the queued text carries ? instead', () => {
      expect(decideOne({ destination: '+447400123456', text: 'Grüße ç 😀', encoding: 'GSM7' }).data).toMatchObject({
        text: 'Grüße ? ?',
        encoding: 'GSM7',
        smsCount: 1,
      });
    });

    it('when a long text is submitted, then smsCount is its number of parts', () => {
      expect(decideOne({ destination: '+447400123456', text: 'a'.repeat(161) }).data.smsCount).toBe(2);
      expect(decideOne({ destination: '+447400123456', text: 'Ж'.repeat(671 - 1) }).data.smsCount).toBe(10);
    });

    it.each([
      ['in the past', '2030-01-15T09:59:59.999Z'],
      ['exactly now', NOW],
    ])('when scheduled %s, then it is sent now (scheduled null)', (_, scheduled) => {
      const event = decideOne({ destination: '+447400123456', text: 'Hi', scheduled });
      expect(event).toMatchObject({ type: 'MessageQueued', data: { scheduled: null } });
    });

    it('when scheduled in the future, then the schedule is kept in UTC with milliseconds', () => {
      const event = decideOne({ destination: '+447400123456', text: 'Hi', scheduled: '2030-01-15T12:00:00+01:00' });
      expect(event.type === 'MessageQueued' && event.data.scheduled).toBe('2030-01-15T11:00:00.000Z');
      const later = decideOne({ destination: '+447400123456', text: 'Hi', scheduled: '2030-01-15T10:00:00.001Z' });
      expect(later.type === 'MessageQueued' && later.data.scheduled).toBe('2030-01-15T10:00:00.001Z');
    });

    it('when the source is empty, then the message has no source', () => {
      expect(decideOne({ destination: '+447400123456', text: 'Hi', source: '' }, { template: { text: 'x', source: 'ACME' } }).data.source).toBeNull();
    });
  });

  describe('per-message rejections', () => {
    const valid: SmsBatchItem = { destination: '+447400123456', text: 'Hi', source: 'ACME', clientMessageId: 'c-9' };

    it.each<[string, SmsBatchItem, RejectionDescription]>([
      ['no text', { ...valid, text: undefined }, RejectionDescription.TextMissing],
      ['an empty text', { ...valid, text: '' }, RejectionDescription.TextMissing],
      ['1531 GSM characters', { ...valid, text: 'a'.repeat(1531) }, RejectionDescription.TextTooLong],
      ['671 UCS-2 characters', { ...valid, text: 'Ж'.repeat(671) }, RejectionDescription.TextTooLong],
      ['a 12-character alphanumeric source', { ...valid, source: 'ACMEBANK1234' }, RejectionDescription.SourceTooLong],
      ['a 17-digit source', { ...valid, source: '12345678901234567' }, RejectionDescription.SourceTooLong],
      ['an expiry in the past', { ...valid, expiry: '2030-01-15T09:00:00.000Z' }, RejectionDescription.ExpiryReached],
      ['an expiry of exactly now', { ...valid, expiry: NOW }, RejectionDescription.ExpiryReached],
      ['a too short number', { ...valid, destination: '+4474001' }, RejectionDescription.InvalidMsisdn],
      ['letters in the number', { ...valid, destination: '+44740012345a' }, RejectionDescription.InvalidMsisdn],
      ['a national number without country', { ...valid, destination: '07911123456' }, RejectionDescription.InvalidMsisdn],
      ['an unknown country', { ...valid, destination: '07911123456', country: 'XX' }, RejectionDescription.InvalidMsisdn],
    ])('when a message has %s, then it is rejected with its description', (_, item, description) => {
      expect(descriptionOf(decideOne(item))).toBe(description);
    });

    it('the rejection keeps the raw destination and reports what the text would have needed', () => {
      expect(decideOne({ ...valid, destination: 'not a number', text: 'Ж'.repeat(80) })).toEqual({
        type: 'MessageRejected',
        schemaVersion: 1,
        data: {
          umid: umid(0),
          batchId: BATCH_ID,
          clientBatchId: null,
          clientMessageId: 'c-9',
          accountId: 'acme',
          subAccountId: 'acme_hq',
          index: 0,
          destination: 'not a number',
          source: 'ACME',
          encoding: 'UCS2',
          smsCount: 2,
          dlrCallbackUrl: null,
          description: RejectionDescription.InvalidMsisdn,
          rejectedAt: NOW,
        },
      });
    });

    it('a message without text reports GSM7 and no parts', () => {
      expect(decideOne({ ...valid, text: undefined }).data).toMatchObject({ encoding: 'GSM7', smsCount: 0 });
    });

    it.each<[string, SmsBatchItem, RejectionDescription]>([
      [
        'missing text before an invalid number',
        { destination: 'x', text: '', source: 'ACMEBANK1234', expiry: '2000-01-01T00:00:00Z' },
        RejectionDescription.TextMissing,
      ],
      [
        'too long text before too long source',
        { destination: 'x', text: 'a'.repeat(2000), source: 'ACMEBANK1234', expiry: '2000-01-01T00:00:00Z' },
        RejectionDescription.TextTooLong,
      ],
      [
        'too long source before reached expiry',
        { destination: 'x', text: 'Hi', source: 'ACMEBANK1234', expiry: '2000-01-01T00:00:00Z' },
        RejectionDescription.SourceTooLong,
      ],
      [
        'reached expiry before an invalid number',
        { destination: 'x', text: 'Hi', source: 'ACME', expiry: '2000-01-01T00:00:00Z' },
        RejectionDescription.ExpiryReached,
      ],
    ])('the first failed check wins: %s', (_, item, description) => {
      expect(descriptionOf(decideOne(item))).toBe(description);
    });

    it('a template text too long is rejected per message, an item text overriding it is not', () => {
      const decided = when(
        given(),
        command(
          batch([{ destination: '+447400123456' }, { destination: '+447400123456', text: 'short' }], {
            template: { text: 'a'.repeat(1531) },
          }),
        ),
      );
      expect(descriptionOf(onlyEvent(decided, 0))).toBe(RejectionDescription.TextTooLong);
      expect(onlyEvent(decided, 1).type).toBe('MessageQueued');
    });
  });

  describe('counts and order', () => {
    it('counts accepted and rejected messages and lists umids in request order', () => {
      const decided = when(
        given(),
        command(
          batch([
            { destination: '+447400123456', text: 'a' },
            { destination: 'bad', text: 'b' },
            { destination: '+12025550123', text: 'c' },
            { destination: '+12025550123' },
          ]),
        ),
      );
      expect(decided.batch[0]?.data).toMatchObject({
        acceptedCount: 2,
        rejectedCount: 2,
        umids: [umid(0), umid(1), umid(2), umid(3)],
      });
      expect(decided.messages.map((message) => message.umid)).toEqual([umid(0), umid(1), umid(2), umid(3)]);
      expect(decided.messages.map((message) => message.events[0]?.data.index)).toEqual([0, 1, 2, 3]);
      expect(decided.messages.map((message) => message.events[0]?.type)).toEqual([
        'MessageQueued',
        'MessageRejected',
        'MessageQueued',
        'MessageRejected',
      ]);
    });

    it('decides 10,000 messages with the right counts', () => {
      // Valid numbers of four countries: prefix plus the index padded to a full national number.
      const numberings: [string, number][] = [['+447400', 6], ['+1202555', 4], ['+4915123', 6], ['+9198765', 5]];
      const messages: SmsBatchItem[] = Array.from({ length: 10_000 }, (_, index) => {
        const [prefix, digits] = numberings[index % numberings.length] as [string, number];
        if (index % 10 === 9) return { destination: `${prefix}1`, clientMessageId: `m-${index}` }; // too short
        if (index % 100 === 0) return { destination: `${prefix}${'0'.repeat(digits)}`, text: '' }; // no text
        return { destination: `${prefix}${String(index).padStart(digits, '0')}`, clientMessageId: `m-${index}` };
      });
      const decided = when(given(), command(batch(messages, { template: { text: 'Your code is ready {€}', source: 'ACME' } })));

      const queued = decided.messages.filter((message) => message.events[0]?.type === 'MessageQueued').length;
      expect(decided.messages).toHaveLength(10_000);
      expect(decided.batch[0]?.data).toMatchObject({ acceptedCount: queued, rejectedCount: 10_000 - queued });
      expect(queued).toBe(10_000 - 1_000 - 100);
      expect(decided.batch[0]?.data.umids).toHaveLength(10_000);
    });
  });

  describe('given the batch was already submitted', () => {
    it('when the same command is decided again, then there are no events at all', () => {
      const data = batch([{ destination: '+447400123456', text: 'Hi' }]);
      const first = when(given(), command(data));
      const state = given(...first.batch);

      expect(state).toEqual({ submitted: true, batchId: BATCH_ID });
      expect(when(state, command(data))).toEqual({ batch: [], messages: [] });
    });
  });

  describe('whole-request problems the gateway should have caught', () => {
    const rejection = (decision: SubmitBatchDecision): unknown => {
      try {
        when(given(), decision);
      } catch (error) {
        return error;
      }
      return undefined;
    };

    it('an empty batch is refused with 1000', () => {
      const error = rejection(command(batch([])));
      expect(error).toBeInstanceOf(BatchRejectedError);
      expect(error).toMatchObject({ code: ApiErrorCode.InvalidParameter, name: 'BatchRejectedError' });
    });

    it('more than 10,000 messages are refused with 1100', () => {
      const items = Array.from({ length: 10_001 }, () => ({ destination: '+447400123456', text: 'Hi' }));
      expect(rejection(command(batch(items)))).toMatchObject({ code: ApiErrorCode.BulkLimitReached });
    });

    it('an unknown encoding is refused with 1003', () => {
      const item = { destination: '+447400123456', text: 'Hi', encoding: 'UTF8' } as unknown as SmsBatchItem;
      expect(rejection(command(batch([item])))).toMatchObject({ code: ApiErrorCode.InvalidEncoding });
    });

    it('unreadable timestamps are refused with 1006 (expiry) and 1011 (scheduled)', () => {
      const item = { destination: '+447400123456', text: 'Hi' };
      expect(rejection(command(batch([{ ...item, expiry: 'tomorrow' }])))).toMatchObject({ code: ApiErrorCode.InvalidExpiry });
      expect(rejection(command(batch([{ ...item, scheduled: 'soon' }])))).toMatchObject({
        code: ApiErrorCode.InvalidScheduleTime,
      });
    });

    it('a command without one umid per message is a programming error', () => {
      const decision = { ...command(batch([{ destination: '+447400123456', text: 'Hi' }])), umids: [] };
      const error = rejection(decision);
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(BatchRejectedError);
    });
  });
});

describe('decideSubmitBatch with refuseRejected (the single send)', () => {
  const decideOne = (item: SmsBatchItem) => () => decideSubmitBatch(command(batch([item], { refuseRejected: true })), initialBatchState());

  it('decides a good message as any batch does', () => {
    const decided = decideOne({ destination: '+447911123456', text: 'Hello' })();
    expect(decided.messages[0]?.events[0]?.type).toBe('MessageQueued');
  });

  it.each([
    [{ destination: 'not a number', text: 'Hello' }, ApiErrorCode.InvalidMsisdn, RejectionDescription.InvalidMsisdn],
    [{ destination: '+447911123456' }, ApiErrorCode.InvalidText, RejectionDescription.TextMissing],
    [{ destination: '+447911123456', text: 'x'.repeat(1531) }, ApiErrorCode.InvalidText, RejectionDescription.TextTooLong],
    [{ destination: '+447911123456', text: 'Hi', source: 'A-sender-far-too-long' }, ApiErrorCode.InvalidSource, RejectionDescription.SourceTooLong],
    [{ destination: '+447911123456', text: 'Hi', expiry: '2030-01-15T09:00:00.000Z' }, ApiErrorCode.InvalidExpiry, RejectionDescription.ExpiryReached],
  ])('refuses a message that would be rejected, with the code of its rejection: %j', (item, code, description) => {
    expect(decideOne(item as SmsBatchItem)).toThrow(new BatchRejectedError(code, description));
    try {
      decideOne(item as SmsBatchItem)();
    } catch (error) {
      expect((error as BatchRejectedError).code).toBe(code);
    }
  });
});

describe('evolveBatch', () => {
  it('ignores events it does not know', () => {
    expect(given({ type: 'SomethingElse', data: {} })).toEqual(initialBatchState());
  });
});
