import { readUserData } from './concatenation';
import { MessageStore, messageText, messageView, type MessageEnvelope } from './message-store';
import { u8Tlv, type Tlv } from './smpp-tlv';
import { TlvTag } from './smpp.constants';
import { encodeGsm7, encodeUcs2 } from './sms-text.codec';

const envelope: MessageEnvelope = {
  systemId: 'seed', serviceType: '', source: 'ACME', sourceTon: 5, sourceNpi: 0,
  destination: '447700900123', destTon: 1, destNpi: 1, dataCoding: 0, esmClass: 0x40, registeredDelivery: 1,
};
const at = new Date('2030-01-02T03:04:05Z');

function udh8(reference: number, total: number, sequence: number): Buffer {
  return Buffer.from([0x05, 0x00, 0x03, reference, total, sequence]);
}
function udh16(reference: number, total: number, sequence: number): Buffer {
  return Buffer.from([0x06, 0x08, 0x04, reference >> 8, reference & 0xff, total, sequence]);
}

function addPart(store: MessageStore, id: string, shortMessage: Buffer, options: { esmClass?: number; tlvs?: Tlv[]; dataCoding?: number; destination?: string } = {}) {
  const esmClass = options.esmClass ?? 0x40;
  const userData = readUserData(esmClass, shortMessage, options.tlvs ?? []);
  return store.add({
    envelope: { ...envelope, esmClass, dataCoding: options.dataCoding ?? 0, destination: options.destination ?? envelope.destination },
    messageId: id, payload: userData.payload, concatenation: userData.concatenation, receivedAt: at,
  });
}

describe('concatenated message reassembly', () => {
  it('joins parts with an 8-bit reference that arrive out of order', () => {
    const store = new MessageStore(100);
    addPart(store, 'c', Buffer.concat([udh8(42, 3, 3), encodeGsm7('world!')]));
    addPart(store, 'a', Buffer.concat([udh8(42, 3, 1), encodeGsm7('Hello, ')]));
    const partial = messageView(store.get('a')!);
    expect(partial).toMatchObject({ complete: false, partsReceived: 2, parts: 3, text: 'Hello, world!' });
    addPart(store, 'b', Buffer.concat([udh8(42, 3, 2), encodeGsm7('dear ')]));

    expect(store.size).toBe(1);
    const view = messageView(store.get('b')!);
    expect(view).toMatchObject({ messageId: 'c', messageIds: ['a', 'b', 'c'], parts: 3, partsReceived: 3, complete: true, text: 'Hello, dear world!' });
  });

  it('joins parts with a 16-bit reference, and keeps references of other destinations apart', () => {
    const store = new MessageStore(100);
    addPart(store, '2', Buffer.concat([udh16(0x1234, 2, 2), encodeGsm7('two')]));
    addPart(store, 'x', Buffer.concat([udh16(0x1234, 2, 1), encodeGsm7('other ')]), { destination: '15550001' });
    addPart(store, '1', Buffer.concat([udh16(0x1234, 2, 1), encodeGsm7('one ')]));
    expect(messageText(store.get('1')!)).toBe('one two');
    expect(messageView(store.get('x')!)).toMatchObject({ complete: false, text: 'other ' });
  });

  it('decodes UCS-2 after joining, so an emoji split between parts survives', () => {
    const store = new MessageStore(100);
    const bytes = encodeUcs2('ok 😀');
    addPart(store, 'p2', Buffer.concat([udh8(7, 2, 2), bytes.subarray(8)]), { dataCoding: 8 });
    addPart(store, 'p1', Buffer.concat([udh8(7, 2, 1), bytes.subarray(0, 8)]), { dataCoding: 8 });
    expect(messageText(store.get('p1')!)).toBe('ok 😀');
  });

  it('joins parts numbered by SAR TLVs', () => {
    const store = new MessageStore(100);
    const sar = (seq: number) => [{ tag: TlvTag.sar_msg_ref_num, value: Buffer.of(0, 9) }, u8Tlv(TlvTag.sar_total_segments, 2), u8Tlv(TlvTag.sar_segment_seqnum, seq)];
    addPart(store, 's2', encodeGsm7('B'), { esmClass: 0, tlvs: sar(2) });
    addPart(store, 's1', encodeGsm7('A'), { esmClass: 0, tlvs: sar(1) });
    expect(messageView(store.get('s2')!)).toMatchObject({ text: 'AB', complete: true });
  });

  it('starts a new message when a part number repeats (the ESME sent the message again)', () => {
    const store = new MessageStore(100);
    addPart(store, 'a1', Buffer.concat([udh8(1, 2, 1), encodeGsm7('x')]));
    addPart(store, 'b1', Buffer.concat([udh8(1, 2, 1), encodeGsm7('x')]));
    addPart(store, 'b2', Buffer.concat([udh8(1, 2, 2), encodeGsm7('y')]));
    expect(store.size).toBe(2);
    expect(messageView(store.get('b2')!)).toMatchObject({ messageIds: ['b1', 'b2'], text: 'xy' });
  });

  it('takes the text from message_payload when short_message is empty, and ignores UDH other than concatenation', () => {
    const store = new MessageStore(100);
    const ports = Buffer.from([0x06, 0x05, 0x04, 0x0b, 0x84, 0x23, 0xf0]);
    addPart(store, 'm', Buffer.alloc(0), { tlvs: [{ tag: TlvTag.message_payload, value: Buffer.concat([ports, encodeGsm7('long text')]) }] });
    expect(messageView(store.get('m')!)).toMatchObject({ parts: 1, text: 'long text' });
  });

  it('keeps a malformed UDH in the text rather than losing bytes', () => {
    const store = new MessageStore(100);
    addPart(store, 'bad', Buffer.from([0x09, 0x00, 0x41]));
    expect(store.get('bad')!.parts[0]!.payload).toEqual(Buffer.from([0x09, 0x00, 0x41]));
  });
});

describe('message store', () => {
  it('forgets the oldest messages past its capacity', () => {
    const store = new MessageStore(2);
    for (const id of ['1', '2', '3']) addPart(store, id, encodeGsm7(id), { esmClass: 0 });
    expect(store.size).toBe(2);
    expect(store.get('1')).toBeUndefined();
    expect(store.list({}).messages.map((m) => m.messageId)).toEqual(['2', '3']);
  });

  it('filters by destination and time, and limits', () => {
    const store = new MessageStore(10);
    addPart(store, '1', encodeGsm7('a'), { esmClass: 0, destination: '111' });
    addPart(store, '2', encodeGsm7('b'), { esmClass: 0, destination: '222' });
    addPart(store, '3', encodeGsm7('c'), { esmClass: 0, destination: '111' });
    expect(store.list({ destination: '111' }).messages.map((m) => m.messageId)).toEqual(['1', '3']);
    expect(store.list({ since: new Date(at.getTime() + 1) })).toEqual({ messages: [], matched: 0 });
    const limited = store.list({ limit: 1 });
    expect(limited.messages.map((m) => m.messageId)).toEqual(['1']);
    expect(limited.matched).toBe(3);
    expect(store.clear()).toBe(3);
    expect(store.get('1')).toBeUndefined();
  });
});
