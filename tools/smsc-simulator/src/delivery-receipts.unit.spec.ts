import { ReceiptDispatcher, encodeReceipt, pickFinalState, receiptDate, receiptText, type ReceiptChannel } from './delivery-receipts';
import { MessageStore, type StoredPart } from './message-store';
import { decodePdu } from './smpp-pdu.codec';
import type { ShortMessagePdu } from './smpp-pdu.types';
import { findTlv } from './smpp-tlv';
import { TlvTag } from './smpp.constants';
import { zeroCounters } from './simulator-stats';
import { defaultSimulatorConfig, type SimulatorConfig } from './simulator.config';
import { decodeGsm7, encodeGsm7, encodeUcs2 } from './sms-text.codec';

function storedPart(store: MessageStore, messageId: string, text: Buffer, dataCoding = 0): StoredPart {
  return store.add({
    envelope: { systemId: 'seed', serviceType: '', source: 'ACME', sourceTon: 5, sourceNpi: 0, destination: '447700900123', destTon: 1, destNpi: 1, dataCoding, esmClass: 0, registeredDelivery: 1 },
    messageId, payload: text, concatenation: null, receivedAt: new Date('2031-12-24T23:58:59Z'),
  });
}

describe('receipt text', () => {
  it('follows the usual id/sub/dlvrd/dates/stat/err/text layout', () => {
    const text = receiptText({
      messageId: '1a2b3c', state: 'DELIVRD',
      submittedAt: new Date('2031-12-24T23:58:59Z'), doneAt: new Date('2032-01-01T00:00:01Z'),
      text: 'Your code is 123456, valid for 5 minutes',
    });
    expect(text).toBe('id:1a2b3c sub:001 dlvrd:001 submit date:3112242358 done date:3201010000 stat:DELIVRD err:000 text:Your code is 123456,');
  });

  it('counts nothing delivered and gives an error code when the message failed', () => {
    const text = receiptText({ messageId: '42', state: 'UNDELIV', submittedAt: new Date(0), doneAt: new Date(0), text: 'short' });
    expect(text).toMatch(/^id:42 sub:001 dlvrd:000 submit date:7001010000 done date:7001010000 stat:UNDELIV err:0(?!00)\d\d text:short$/);
  });

  it('cuts the text at 20 characters, not 20 UTF-16 units', () => {
    const text = receiptText({ messageId: '1', state: 'DELIVRD', submittedAt: new Date(0), doneAt: new Date(0), text: '😀'.repeat(25) });
    expect(text.endsWith(`text:${'😀'.repeat(20)}`)).toBe(true);
  });

  it('formats dates as YYMMDDhhmm in UTC', () => {
    expect(receiptDate(new Date('2009-03-07T08:05:59.999Z'))).toBe('0903070805');
  });
});

describe('receipt deliver_sm', () => {
  it('swaps the addresses, sets esm_class 0x04 and carries receipted_message_id and message_state', () => {
    const part = storedPart(new MessageStore(10), 'ff00aa', encodeUcs2('Grüße 😀 from a long message'), 8);
    const pdu = decodePdu(encodeReceipt(part, 'EXPIRED', new Date('2032-01-01T00:00:00Z'))) as ShortMessagePdu;
    expect(pdu).toMatchObject({ command: 'deliver_sm', esmClass: 0x04, dataCoding: 0, sourceAddr: '447700900123', sourceAddrTon: 1, sourceAddrNpi: 1, destinationAddr: 'ACME', destAddrTon: 5, destAddrNpi: 0 });
    expect(findTlv(pdu.tlvs, TlvTag.receipted_message_id)).toEqual(Buffer.from('ff00aa\0'));
    expect(findTlv(pdu.tlvs, TlvTag.message_state)).toEqual(Buffer.of(3));
    // The emoji has no GSM character: '?' in the receipt's own (GSM) text.
    expect(decodeGsm7(pdu.shortMessage)).toBe('id:ff00aa sub:001 dlvrd:000 submit date:3112242358 done date:3201010000 stat:EXPIRED err:001 text:Grüße ? from a long ');
  });
});

describe('pickFinalState', () => {
  const mix = [{ state: 'DELIVRD', weight: 90 }, { state: 'UNDELIV', weight: 0 }, { state: 'REJECTD', weight: 10 }] as const;
  it.each([
    [0, 'DELIVRD'], [0.8999, 'DELIVRD'], [0.9, 'REJECTD'], [0.99999, 'REJECTD'], [1, 'REJECTD'],
  ])('maps %d to %s by weight', (point, state) => {
    expect(pickFinalState([...mix], () => point)).toBe(state);
  });
});

describe('ReceiptDispatcher', () => {
  class FakeChannel implements ReceiptChannel {
    readonly written: ShortMessagePdu[] = [];
    private sequence = 100;
    constructor(readonly systemId = 'seed') {}
    nextSequence() {
      return ++this.sequence;
    }
    write(bytes: Buffer) {
      this.written.push(decodePdu(bytes) as ShortMessagePdu);
    }
    ids() {
      return this.written.map((pdu) => findTlv(pdu.tlvs, TlvTag.receipted_message_id)?.toString('latin1').replace('\0', ''));
    }
  }

  let config: { current: SimulatorConfig };
  let counters: ReturnType<typeof zeroCounters>;
  let dispatcher: ReceiptDispatcher;
  let store: MessageStore;

  beforeEach(() => {
    jest.useFakeTimers();
    config = { current: { ...defaultSimulatorConfig(), receiptDelayMs: 200, receiptAckTimeoutMs: 1000, receiptRetries: 2, window: 2 } };
    counters = zeroCounters();
    dispatcher = new ReceiptDispatcher(config, counters, () => Date.now());
    store = new MessageStore(100);
  });
  afterEach(() => {
    dispatcher.stop();
    jest.useRealTimers();
  });

  const schedule = (...ids: string[]) => ids.map((id) => {
    const part = storedPart(store, id, encodeGsm7(`text ${id}`));
    dispatcher.schedule(part, 'DELIVRD');
    return part;
  });

  it('waits for the delay, then sends no more than the window and more as acknowledgements come', () => {
    const channel = new FakeChannel();
    dispatcher.attach(channel);
    const [first] = schedule('a', 'b', 'c');
    jest.advanceTimersByTime(199);
    expect(channel.written).toHaveLength(0);
    jest.advanceTimersByTime(1);
    expect(channel.ids()).toEqual(['a', 'b']);
    expect(first!.receipt).toMatchObject({ attempts: 1, acknowledged: false });

    dispatcher.acknowledge(channel, channel.written[0]!.sequenceNumber, 0);
    expect(first!.receipt).toMatchObject({ acknowledged: true });
    expect(channel.ids()).toEqual(['a', 'b', 'c']);
    expect(counters).toMatchObject({ receiptsSent: 3, receiptsAcked: 1 });
  });

  it('queues receipts while no receiver is bound, and delivers them to the next one', () => {
    schedule('a', 'b');
    jest.advanceTimersByTime(500);
    expect(dispatcher.queuedCount).toBe(2);
    const other = new FakeChannel('someone-else');
    dispatcher.attach(other);
    expect(other.written).toHaveLength(0);
    const channel = new FakeChannel();
    dispatcher.attach(channel);
    expect(channel.ids()).toEqual(['a', 'b']);
  });

  it('sends again what was not acknowledged in time, then gives up after the retries', () => {
    const channel = new FakeChannel();
    dispatcher.attach(channel);
    const [part] = schedule('a');
    jest.advanceTimersByTime(200);
    jest.advanceTimersByTime(1000);
    expect(channel.ids()).toEqual(['a', 'a']);
    expect(new Set(channel.written.map((p) => p.sequenceNumber)).size).toBe(2);
    dispatcher.acknowledge(channel, channel.written[1]!.sequenceNumber, 0x64); // ESME_RX_T_APPN: try later
    expect(channel.ids()).toEqual(['a', 'a', 'a']);
    jest.advanceTimersByTime(1100);
    expect(channel.written).toHaveLength(3);
    expect(part!.receipt).toMatchObject({ attempts: 3, abandoned: true, acknowledged: false });
    expect(counters).toMatchObject({ receiptsSent: 1, receiptsResent: 2, receiptsAbandoned: 1 });
  });

  it('puts back in front what a closing session had in flight, without counting it as a failure', () => {
    const first = new FakeChannel();
    dispatcher.attach(first);
    const [part] = schedule('a', 'b', 'c');
    jest.advanceTimersByTime(200);
    expect(first.ids()).toEqual(['a', 'b']);
    dispatcher.detach(first);
    const second = new FakeChannel();
    dispatcher.attach(second);
    expect(second.ids()).toEqual(['a', 'b']);
    dispatcher.acknowledge(first, first.written[0]!.sequenceNumber, 0); // a stale answer changes nothing
    expect(part!.receipt?.acknowledged).toBe(false);
    for (const pdu of [...second.written]) dispatcher.acknowledge(second, pdu.sequenceNumber, 0);
    expect(second.ids()).toEqual(['a', 'b', 'c']);
    expect(part!.receipt).toMatchObject({ acknowledged: true, abandoned: false });
  });

  it('shares receipts between the sessions of a system_id', () => {
    const one = new FakeChannel();
    const two = new FakeChannel();
    dispatcher.attach(one);
    dispatcher.attach(two);
    schedule('a', 'b', 'c', 'd');
    jest.advanceTimersByTime(200);
    expect([...one.ids(), ...two.ids()].sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(one.written.length).toBe(2);
  });
});
