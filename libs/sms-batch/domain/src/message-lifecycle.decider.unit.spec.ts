import type { CarrierReceipt, MessageQueuedV1, MessageRef, MessageRejectedV1 } from '@seed/sms-batch-contracts';
import { RejectionDescription } from '@seed/sms-batch-contracts';
import {
  decideMessage,
  evolveMessage,
  initialMessageState,
  type MessageCommand,
  type MessageLifecycleEvent,
  type MessageState,
  ReceiptBeforeSubmissionError,
} from './message-lifecycle.decider';

const UMID = '00000000-0000-4000-8000-000000000001';
const QUEUED_AT = '2030-01-15T10:00:00.000Z';
const SENT_AT = '2030-01-15T10:00:01.000Z';
const EXPIRY = '2030-01-15T11:00:00.000Z';

const REF: MessageRef = {
  umid: UMID,
  batchId: '7d3f6c1e-0000-4000-8000-000000000001',
  clientBatchId: 'client-batch-1',
  clientMessageId: 'm-1',
  accountId: 'acme',
  subAccountId: 'acme_hq',
  destination: '447400123456',
  source: 'ACME',
  smsCount: 1,
  dlrCallbackUrl: 'https://hooks.example.com/dlr',
};

type StoredEvent = { type: string; data: unknown };

const queued = (overrides: Partial<MessageQueuedV1> = {}): StoredEvent => ({
  type: 'MessageQueued',
  data: {
    ...REF,
    index: 0,
    text: 'Hello',
    encoding: 'GSM7',
    scheduled: null,
    expiry: EXPIRY,
    queuedAt: QUEUED_AT,
    ...overrides,
  } satisfies MessageQueuedV1,
});
const rejected = (): StoredEvent => ({
  type: 'MessageRejected',
  data: {
    ...REF,
    index: 0,
    encoding: 'GSM7',
    description: RejectionDescription.InvalidMsisdn,
    rejectedAt: QUEUED_AT,
  } satisfies MessageRejectedV1,
});
const ref = (smsCount = 1): MessageRef => ({ ...REF, smsCount });

const receipt = (carrierMessageId: string, stat: string, extra: Partial<CarrierReceipt> = {}): CarrierReceipt => ({
  carrierMessageId,
  stat,
  err: '000',
  submitDate: '3001151000',
  doneDate: '3001151001',
  receivedAt: '2030-01-15T10:01:00.000Z',
  ...extra,
});

// given / when / then: the state is folded from stored events, the events produced fed back in.
const given = (...events: StoredEvent[]): MessageState => events.reduce(evolveMessage, initialMessageState());
const when = (state: MessageState, command: MessageCommand): MessageLifecycleEvent[] => decideMessage(command, state);
const then = (state: MessageState, events: MessageLifecycleEvent[]): MessageState => events.reduce(evolveMessage, state);

const sentWith = (...carrierMessageIds: string[]): StoredEvent[] => [
  queued({ smsCount: carrierMessageIds.length }),
  ...when(given(queued({ smsCount: carrierMessageIds.length })), { type: 'RecordSubmission', carrierMessageIds, at: SENT_AT }),
];
const recordReceipt = (r: CarrierReceipt): MessageCommand => ({ type: 'RecordReceipt', receipt: r });

describe('evolveMessage', () => {
  it('starts with nothing', () => {
    expect(initialMessageState()).toEqual({
      status: 'none',
      ref: null,
      text: null,
      encoding: null,
      scheduled: null,
      expiry: null,
      carrierMessageIds: [],
      deliveredReceipts: [],
    });
  });

  it('takes the reference and what the sender needs from MessageQueued, nothing else', () => {
    const state = given(queued({ scheduled: '2030-01-15T10:30:00.000Z' }));
    expect(state).toEqual({
      status: 'queued',
      ref: REF,
      text: 'Hello',
      encoding: 'GSM7',
      scheduled: '2030-01-15T10:30:00.000Z',
      expiry: EXPIRY,
      carrierMessageIds: [],
      deliveredReceipts: [],
    });
  });

  it('takes the reference from MessageRejected', () => {
    expect(given(rejected())).toMatchObject({ status: 'rejected', ref: REF, text: null });
  });

  it('ignores event types it does not know', () => {
    const state = given(queued());
    expect(evolveMessage(state, { type: 'SomethingNew', data: {} })).toBe(state);
  });
});

describe('decideMessage', () => {
  describe('RecordSubmission', () => {
    it('given a queued message, then it is sent with its carrier ids', () => {
      const events = when(given(queued({ smsCount: 2 })), { type: 'RecordSubmission', carrierMessageIds: ['A1', 'A2'], at: SENT_AT });
      expect(events).toEqual([
        { type: 'MessageSent', schemaVersion: 1, data: { ...ref(2), carrierMessageIds: ['A1', 'A2'], sentAt: SENT_AT } },
      ]);
      expect(then(given(queued({ smsCount: 2 })), events)).toMatchObject({ status: 'sent', carrierMessageIds: ['A1', 'A2'] });
    });

    it('given a sent message, when the submission is recorded again, then nothing happens (retry)', () => {
      expect(when(given(...sentWith('A1')), { type: 'RecordSubmission', carrierMessageIds: ['B1'], at: SENT_AT })).toEqual([]);
    });

    it.each([
      ['delivered', [...sentWith('A1'), { type: 'MessageDelivered', data: { ...REF, receipts: [receipt('A1', 'DELIVRD')], deliveredAt: SENT_AT } }]],
      ['undelivered', [queued(), { type: 'MessageUndelivered', data: { ...REF, reason: 'expired' } }]],
      ['rejected', [rejected()]],
    ])('given a %s message, then nothing happens', (_, history) => {
      expect(when(given(...history), { type: 'RecordSubmission', carrierMessageIds: ['A1'], at: SENT_AT })).toEqual([]);
    });

    it('refuses a number of carrier ids other than the parts the message was accepted with', () => {
      const state = given(queued({ smsCount: 2 }));
      expect(() => when(state, { type: 'RecordSubmission', carrierMessageIds: ['A1'], at: SENT_AT })).toThrow(/needs 2/);
      expect(() => when(state, { type: 'RecordSubmission', carrierMessageIds: ['A1', 'A2', 'A3'], at: SENT_AT })).toThrow(/needs 2/);
    });

    it('records a blank carrier id as given: the carrier has the message, though no receipt can match it', () => {
      const state = given(queued());
      expect(when(state, { type: 'RecordSubmission', carrierMessageIds: [''], at: SENT_AT })).toMatchObject([
        { type: 'MessageSent', data: { carrierMessageIds: [''] } },
      ]);
    });
  });

  describe('RecordSubmissionFailure', () => {
    const failure: MessageCommand = { type: 'RecordSubmissionFailure', errorCode: '0x0000000B', errorMessage: 'Invalid destination address', at: SENT_AT };

    it('given a queued message, then it is undelivered as refused by the carrier', () => {
      expect(when(given(queued()), failure)).toEqual([
        {
          type: 'MessageUndelivered',
          schemaVersion: 1,
          data: {
            ...REF,
            reason: 'carrier-rejected',
            detail: 'submit_sm refused: 0x0000000B',
            errorCode: '0x0000000B',
            errorMessage: 'Invalid destination address',
            receipt: null,
            undeliveredAt: SENT_AT,
          },
        },
      ]);
    });

    it('given a sent or final message, then nothing happens', () => {
      expect(when(given(...sentWith('A1')), failure)).toEqual([]);
      expect(when(given(rejected()), failure)).toEqual([]);
      const undelivered = given(queued());
      expect(when(then(undelivered, when(undelivered, failure)), failure)).toEqual([]);
    });
  });

  describe('RecordOptedOut', () => {
    const optedOut: MessageCommand = { type: 'RecordOptedOut', at: SENT_AT };

    it('given a queued message, then it is undelivered with OPTED_OUT, never handed to a carrier', () => {
      expect(when(given(queued()), optedOut)).toEqual([
        {
          type: 'MessageUndelivered',
          schemaVersion: 1,
          data: {
            ...REF,
            reason: 'opted-out',
            detail: 'the recipient opted out of this sub-account',
            errorCode: 'OPTED_OUT',
            errorMessage: 'the recipient opted out of messages from this sub-account',
            receipt: null,
            undeliveredAt: SENT_AT,
          },
        },
      ]);
    });

    it('given a message already handed off or final, then nothing happens', () => {
      expect(when(given(...sentWith('A1')), optedOut)).toEqual([]);
      expect(when(given(rejected()), optedOut)).toEqual([]);
    });
  });

  describe('ExpireBeforeHandoff', () => {
    it('given a queued message whose expiry has passed, then it is undelivered as expired', () => {
      expect(when(given(queued()), { type: 'ExpireBeforeHandoff', at: '2030-01-15T11:00:00.001Z' })).toEqual([
        {
          type: 'MessageUndelivered',
          schemaVersion: 1,
          data: {
            ...REF,
            reason: 'expired',
            detail: 'expiry passed before hand-off',
            errorCode: null,
            errorMessage: null,
            receipt: null,
            undeliveredAt: '2030-01-15T11:00:00.001Z',
          },
        },
      ]);
    });

    it('given a queued message, when the expiry is exactly now, then it expires (expiry is exclusive)', () => {
      expect(when(given(queued()), { type: 'ExpireBeforeHandoff', at: EXPIRY })).toHaveLength(1);
    });

    it('compares instants, not strings', () => {
      expect(when(given(queued()), { type: 'ExpireBeforeHandoff', at: '2030-01-15T12:00:00.000+01:00' })).toHaveLength(1);
      expect(when(given(queued()), { type: 'ExpireBeforeHandoff', at: '2030-01-15T11:59:59.000+01:00' })).toEqual([]);
    });

    it('given a queued message before its expiry or without one, then nothing happens', () => {
      expect(when(given(queued()), { type: 'ExpireBeforeHandoff', at: '2030-01-15T10:59:59.999Z' })).toEqual([]);
      expect(when(given(queued({ expiry: null })), { type: 'ExpireBeforeHandoff', at: '2099-01-01T00:00:00.000Z' })).toEqual([]);
    });

    it('given a message already handed off, then nothing happens', () => {
      expect(when(given(...sentWith('A1')), { type: 'ExpireBeforeHandoff', at: '2031-01-01T00:00:00.000Z' })).toEqual([]);
    });
  });

  describe('RecordReceipt', () => {
    describe('given a sent single-part message', () => {
      it('when DELIVRD, then it is delivered', () => {
        const r = receipt('A1', 'DELIVRD');
        const events = when(given(...sentWith('A1')), recordReceipt(r));
        expect(events).toEqual([
          { type: 'MessageDelivered', schemaVersion: 1, data: { ...REF, receipts: [r], deliveredAt: r.receivedAt } },
        ]);
        expect(then(given(...sentWith('A1')), events)).toMatchObject({ status: 'delivered', deliveredReceipts: [r] });
      });

      it('when DELIVRD quotes the id in the other base, then it is delivered', () => {
        expect(when(given(...sentWith('1A2B3C')), recordReceipt(receipt('1715004', 'DELIVRD')))[0]?.type).toBe('MessageDelivered');
        expect(when(given(...sentWith('1715004')), recordReceipt(receipt('001A2B3C', 'DELIVRD')))[0]?.type).toBe('MessageDelivered');
      });

      it.each([
        ['UNDELIV', 'Message is undeliverable'],
        ['EXPIRED', 'Message validity period expired'],
        ['REJECTD', 'Message rejected by the carrier'],
        ['DELETED', 'Message deleted by the carrier'],
      ])('when %s, then it is undelivered with the receipt', (stat, errorMessage) => {
        const r = receipt('A1', stat, { err: '034' });
        expect(when(given(...sentWith('A1')), recordReceipt(r))).toEqual([
          {
            type: 'MessageUndelivered',
            schemaVersion: 1,
            data: { ...REF, reason: 'receipt', detail: stat, errorCode: '034', errorMessage, receipt: r, undeliveredAt: r.receivedAt },
          },
        ]);
      });

      it.each(['ACCEPTD', 'ENROUTE', 'UNKNOWN', 'SOMETHING'])('when %s, then it is only recorded as not final', (stat) => {
        const r = receipt('A1', stat);
        const events = when(given(...sentWith('A1')), recordReceipt(r));
        expect(events).toEqual([{ type: 'ReceiptRecorded', schemaVersion: 1, data: { ...REF, receipt: r, note: 'not-final' } }]);
        expect(then(given(...sentWith('A1')), events).status).toBe('sent');
      });

      it('when the receipt matches none of its ids, then the caller is told it matched wrongly', () => {
        expect(() => when(given(...sentWith('A1')), recordReceipt(receipt('B7', 'DELIVRD')))).toThrow(/matches no part/);
      });
    });

    describe('given a sent three-part message', () => {
      const history = (): StoredEvent[] => sentWith('10', '11', '12');
      const withReceipts = (...receipts: CarrierReceipt[]): MessageState =>
        receipts.reduce((state, r) => then(state, when(state, recordReceipt(r))), given(...history()));

      it('when one part is delivered, then the part is recorded and the message stays sent', () => {
        const r = receipt('11', 'DELIVRD');
        const events = when(given(...history()), recordReceipt(r));
        expect(events).toEqual([{ type: 'ReceiptRecorded', schemaVersion: 1, data: { ...ref(3), receipt: r, note: 'part-delivered' } }]);
        expect(then(given(...history()), events)).toMatchObject({ status: 'sent', deliveredReceipts: [r] });
      });

      it('when the last part is delivered, then the message is delivered with every receipt in part order', () => {
        const r12 = receipt('12', 'DELIVRD', { receivedAt: '2030-01-15T10:01:00.000Z' });
        const r10 = receipt('10', 'DELIVRD', { receivedAt: '2030-01-15T10:01:01.000Z' });
        const r11 = receipt('0B', 'DELIVRD', { receivedAt: '2030-01-15T10:01:02.000Z' }); // hex of 11
        const events = when(withReceipts(r12, r10), recordReceipt(r11));
        expect(events).toEqual([
          { type: 'MessageDelivered', schemaVersion: 1, data: { ...ref(3), receipts: [r10, r11, r12], deliveredAt: r11.receivedAt } },
        ]);
      });

      it('when a delivered part is reported delivered again, then it is recorded as a duplicate', () => {
        const r = receipt('11', 'DELIVRD');
        expect(when(withReceipts(r), recordReceipt({ ...r, receivedAt: '2030-01-15T10:05:00.000Z' }))).toEqual([
          { type: 'ReceiptRecorded', schemaVersion: 1, data: { ...ref(3), receipt: { ...r, receivedAt: '2030-01-15T10:05:00.000Z' }, note: 'duplicate' } },
        ]);
      });

      it('when the same part is reported delivered in every form, then it still needs the other parts', () => {
        const state = withReceipts(receipt('10', 'DELIVRD'), receipt('010', 'DELIVRD'), receipt('a', 'DELIVRD'));
        expect(state.status).toBe('sent');
        expect(when(state, recordReceipt(receipt('11', 'DELIVRD')))[0]?.type).toBe('ReceiptRecorded');
        expect(when(then(state, when(state, recordReceipt(receipt('11', 'DELIVRD')))), recordReceipt(receipt('12', 'DELIVRD')))[0]?.type).toBe(
          'MessageDelivered',
        );
      });

      it('when an undelivered part is reported failed, then the whole message is undelivered', () => {
        const state = withReceipts(receipt('10', 'DELIVRD'));
        const events = when(state, recordReceipt(receipt('12', 'UNDELIV', { err: '001' })));
        expect(events).toMatchObject([{ type: 'MessageUndelivered', data: { reason: 'receipt', detail: 'UNDELIV', errorCode: '001' } }]);
        expect(then(state, events).status).toBe('undelivered');
      });

      it('when a delivered part is later reported failed, then the part stays delivered', () => {
        const state = withReceipts(receipt('10', 'DELIVRD'));
        expect(when(state, recordReceipt(receipt('10', 'UNDELIV')))).toMatchObject([
          { type: 'ReceiptRecorded', data: { note: 'after-final-state' } },
        ]);
      });
    });

    describe('given ids that read alike in the other base', () => {
      // '10' read as hex is 16, so a receipt '16' could mean either part: its own form wins.
      it('matches a receipt to the part with the same id before one equal only in another base', () => {
        const state = given(...sentWith('10', '16'));
        const r16 = receipt('16', 'DELIVRD');
        const events = when(state, recordReceipt(r16));
        expect(events).toMatchObject([{ type: 'ReceiptRecorded', data: { note: 'part-delivered' } }]);
        const r10 = receipt('10', 'DELIVRD');
        expect(when(then(state, events), recordReceipt(r10))).toEqual([
          { type: 'MessageDelivered', schemaVersion: 1, data: { ...ref(2), receipts: [r10, r16], deliveredAt: r10.receivedAt } },
        ]);
      });
    });

    describe('given a final message', () => {
      it.each(['DELIVRD', 'UNDELIV', 'ENROUTE'])('when %s arrives after delivery, then it is recorded and changes nothing', (stat) => {
        const delivered = then(given(...sentWith('A1')), when(given(...sentWith('A1')), recordReceipt(receipt('A1', 'DELIVRD'))));
        const r = receipt('A1', stat);
        const events = when(delivered, recordReceipt(r));
        expect(events).toEqual([{ type: 'ReceiptRecorded', schemaVersion: 1, data: { ...REF, receipt: r, note: 'after-final-state' } }]);
        expect(then(delivered, events)).toEqual(delivered);
      });

      it('when DELIVRD arrives after a failure, then the message stays undelivered', () => {
        const undelivered = then(given(...sentWith('A1')), when(given(...sentWith('A1')), recordReceipt(receipt('A1', 'EXPIRED'))));
        const events = when(undelivered, recordReceipt(receipt('A1', 'DELIVRD')));
        expect(events).toMatchObject([{ type: 'ReceiptRecorded', data: { note: 'after-final-state' } }]);
        expect(then(undelivered, events).status).toBe('undelivered');
      });
    });

    it('given a queued message, then the receipt came before the submission was recorded', () => {
      const act = () => when(given(queued()), recordReceipt(receipt('A1', 'DELIVRD')));
      expect(act).toThrow(ReceiptBeforeSubmissionError);
      expect(act).toThrow(expect.objectContaining({ umid: UMID, carrierMessageId: 'A1' }));
    });

    it('given a rejected message, then the caller has a bug', () => {
      const act = () => when(given(rejected()), recordReceipt(receipt('A1', 'DELIVRD')));
      expect(act).toThrow(/rejected/);
      expect(act).not.toThrow(ReceiptBeforeSubmissionError);
    });
  });

  it.each<MessageCommand>([
    { type: 'RecordSubmission', carrierMessageIds: ['A1'], at: SENT_AT },
    { type: 'RecordSubmissionFailure', errorCode: '0x0000000B', errorMessage: 'x', at: SENT_AT },
    { type: 'ExpireBeforeHandoff', at: SENT_AT },
    { type: 'RecordReceipt', receipt: receipt('A1', 'DELIVRD') },
  ])('given no message, when $type, then the caller has a bug', (command) => {
    expect(() => when(given(), command)).toThrow(/never queued/);
  });
});
