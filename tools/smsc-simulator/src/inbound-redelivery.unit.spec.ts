import { decodePdu } from './smpp-pdu.codec';
import type { ShortMessagePdu } from './smpp-pdu.types';
import { INBOUND_RETRY_DELAY_MS } from './inbound-dispatcher';
import { InboundOriginator, type InboundChannel } from './inbound-originator';
import { parseInboundRequest } from './inbound-request';

// What the simulator sends again when the ESME does not acknowledge an inbound part, as a carrier
// that keeps a mobile-originated message until it is acknowledged: no infrastructure, fake time.

class FakeChannel implements InboundChannel {
  readonly written: ShortMessagePdu[] = [];
  readonly systemId = 'seed';
  readonly bindType = 'transceiver';
  canReceive = true;
  private sequence = 0;
  constructor(readonly id: number) {}
  get remote(): string {
    return `127.0.0.1:${4000 + this.id}`;
  }
  nextSequence(): number {
    return ++this.sequence;
  }
  write(pdu: Buffer): void {
    this.written.push(decodePdu(pdu) as ShortMessagePdu);
  }
  /** Answers every deliver_sm written so far that this test has not answered yet. */
  answerAll(originator: InboundOriginator, status = 0): void {
    for (const pdu of this.written.splice(0)) originator.acknowledge(this, pdu.sequenceNumber, status);
  }
}

const request = (extra: Record<string, unknown> = {}) => parseInboundRequest({ source: '447700900123', destination: '447700100100', text: 'abcdef', ...extra });
const hex = (pdus: ShortMessagePdu[]) => pdus.map((p) => p.shortMessage.toString('hex'));

let channels: FakeChannel[];
let originator: InboundOriginator;
let now: number;
let config: { current: { window: number; inboundResponseTimeoutMs: number } };
let counters: { inboundSent: number; inboundRedelivered: number };

const advance = (ms: number) => {
  now += ms;
  jest.advanceTimersByTime(ms);
};
/** The session goes away, as SmppSession does on close or unbind. */
const close = (channel: FakeChannel) => {
  channel.canReceive = false;
  originator.detach(channel);
};
const summary = (deliveries: { part: number; reason: string; session: { id: number }; response: { status: number } | null }[]) =>
  deliveries.map((d) => [d.part, d.reason, d.session.id, d.response?.status ?? null]);

beforeEach(() => {
  jest.useFakeTimers();
  channels = [new FakeChannel(1), new FakeChannel(2)];
  now = 1_700_000_000_000;
  config = { current: { window: 100, inboundResponseTimeoutMs: 10_000 } };
  counters = { inboundSent: 0, inboundRedelivered: 0 };
  originator = new InboundOriginator(() => channels.filter((c) => c.canReceive), config, counters, () => 0, () => now);
});
afterEach(() => {
  originator.stop();
  jest.useRealTimers();
});

describe('redelivery of unacknowledged inbound parts', () => {
  it('sends the parts a closed session left unanswered to the next session at once, same octets, new sequence numbers', () => {
    const [first, second] = channels as [FakeChannel, FakeChannel];
    const record = originator.originate(request({ parts: 3 }));
    originator.acknowledge(first, 2, 0);
    const sentFirst = hex(first.written);
    close(first);
    expect(summary(record.deliveries)).toEqual([
      [1, 'first', 1, null], [2, 'first', 1, 0], [3, 'first', 1, null],
      [1, 'redelivery', 2, null], [3, 'redelivery', 2, null],
    ]);
    expect(hex(second.written)).toEqual([sentFirst[0], sentFirst[2]]);
    expect(second.written.map((p) => p.sequenceNumber)).toEqual([1, 2]);
    expect(counters).toEqual({ inboundSent: 5, inboundRedelivered: 2 });
  });

  it('keeps what no session can take until one binds, then sends it once', () => {
    const [first, second] = channels as [FakeChannel, FakeChannel];
    second.canReceive = false;
    const record = originator.originate(request({ duplicate: 1 }));
    close(first);
    expect(originator.queuedCount).toBe(1); // the part, once, although two sends of it went unanswered
    advance(60_000);
    second.canReceive = true;
    originator.attach();
    expect(summary(record.deliveries)).toEqual([[1, 'first', 1, null], [1, 'duplicate', 1, null], [1, 'redelivery', 2, null]]);
    second.answerAll(originator);
    expect(originator.queuedCount).toBe(0);
    expect(originator.awaitingCount).toBe(0);
  });

  it('sends again after inboundResponseTimeoutMs without an answer, and ignores the late answer', () => {
    const [first] = channels as [FakeChannel];
    config.current.inboundResponseTimeoutMs = 2000;
    const record = originator.originate(request());
    advance(1900);
    expect(record.deliveries).toHaveLength(1);
    advance(200);
    expect(summary(record.deliveries)).toEqual([[1, 'first', 1, null], [1, 'redelivery', 2, null]]);
    expect(originator.acknowledge(first, 1, 0)).toBe(false);
    expect(record.deliveries[0]?.response).toBeNull();
  });

  it('tries a part answered with an error again after INBOUND_RETRY_DELAY_MS, until it is acknowledged', () => {
    const [first, second] = channels as [FakeChannel, FakeChannel];
    const record = originator.originate(request());
    first.answerAll(originator, 0x08);
    advance(INBOUND_RETRY_DELAY_MS - 1);
    expect(record.deliveries).toHaveLength(1);
    advance(1);
    second.answerAll(originator, 0x08);
    advance(INBOUND_RETRY_DELAY_MS);
    first.answerAll(originator, 0);
    advance(INBOUND_RETRY_DELAY_MS * 5);
    expect(summary(record.deliveries)).toEqual([[1, 'first', 1, 8], [1, 'redelivery', 2, 8], [1, 'redelivery', 1, 0]]);
  });

  it('does not redeliver an acknowledged part, nor a part whose answer counts as lost (its resend is due)', () => {
    const [first, second] = channels as [FakeChannel, FakeChannel];
    const done = originator.originate(request());
    originator.acknowledge(first, 1, 0);
    const lost = originator.originate(request({ loseFirstResponse: true, resendAfterMs: 500 }));
    close(second);
    expect(done.deliveries).toHaveLength(1);
    expect(summary(lost.deliveries)).toEqual([[1, 'first', 2, null]]);
    advance(500);
    expect(summary(lost.deliveries)).toEqual([[1, 'first', 2, null], [1, 'resend', 1, null]]);
  });

  it('queues a resend that finds no session, and sends it when one binds', () => {
    const [first] = channels as [FakeChannel];
    channels = [first];
    const record = originator.originate(request({ loseFirstResponse: true, resendAfterMs: 100 }));
    close(first);
    advance(100);
    expect(record.unsentResends).toEqual([{ part: 1, dueAt: new Date(now) }]);
    first.canReceive = true;
    originator.attach();
    expect(summary(record.deliveries)).toEqual([[1, 'first', 1, null], [1, 'redelivery', 1, null]]);
  });
});

describe('bulk inbound (count)', () => {
  it('numbers the texts and keeps at most `window` unanswered per session, each message whole on one session', () => {
    config.current.window = 3;
    const records = originator.originateMany(request({ text: 'msg {i}', count: 10 }), 10);
    expect(records.map((r) => r.request.text).slice(0, 3)).toEqual(['msg 1', 'msg 2', 'msg 3']);
    expect(channels.map((c) => c.written.length)).toEqual([3, 3]);
    expect(originator.queuedCount).toBe(4);
    channels[0]?.answerAll(originator);
    expect(channels.map((c) => c.written.length)).toEqual([3, 3]); // three more went out on session 1
    channels.forEach((c) => c.answerAll(originator));
    channels.forEach((c) => c.answerAll(originator));
    expect(originator.queuedCount).toBe(0);
    expect(records.every((r) => r.progress.acknowledged.has(1))).toBe(true);
  });

  it('sends what a closed session left owed before the bulk messages still waiting', () => {
    config.current.window = 2;
    const [first, second] = channels as [FakeChannel, FakeChannel];
    originator.originateMany(request({ text: 'msg {i}', count: 6 }), 6);
    expect(first.written.map((p) => p.shortMessage.toString('latin1'))).toEqual(['msg 1', 'msg 3']);
    close(first);
    second.answerAll(originator);
    expect(second.written.map((p) => p.shortMessage.toString('latin1'))).toEqual(['msg 1', 'msg 3']);
    expect(originator.queuedCount).toBe(2);
  });

  it('forgets queued messages on clear', () => {
    config.current.window = 1;
    originator.originateMany(request({ count: 5 }), 5);
    expect(originator.clear()).toBe(5);
    channels.forEach((c) => c.answerAll(originator));
    expect(channels.map((c) => c.written.length)).toEqual([0, 0]);
  });
});
