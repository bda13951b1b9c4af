import { decodePdu } from './smpp-pdu.codec';
import type { ShortMessagePdu } from './smpp-pdu.types';
import { InboundOriginator, NoReceiverError, type InboundChannel } from './inbound-originator';
import { parseInboundRequest } from './inbound-request';

class FakeChannel implements InboundChannel {
  readonly written: ShortMessagePdu[] = [];
  readonly systemId = 'seed';
  readonly bindType = 'transceiver';
  canReceive = true;
  private sequence = 0;
  constructor(
    readonly id: number,
    readonly remote = `127.0.0.1:${4000 + id}`,
  ) {}
  nextSequence(): number {
    return ++this.sequence;
  }
  write(pdu: Buffer): void {
    this.written.push(decodePdu(pdu) as ShortMessagePdu);
  }
}

const request = (extra: Record<string, unknown> = {}) => parseInboundRequest({ source: '447700900123', destination: '447700100100', text: 'abcdef', ...extra });

let channels: FakeChannel[];
let originator: InboundOriginator;
let now: number;
let config: { current: { window: number; inboundResponseTimeoutMs: number } };
let counters: { inboundSent: number; inboundRedelivered: number };

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

describe('InboundOriginator', () => {
  it('shuffles with the simulator\'s random source (always 0: parts 2, 3, 1)', () => {
    const record = originator.originate(request({ parts: 3, order: 'shuffle' }));
    expect(record.deliveries.map((d) => d.part)).toEqual([2, 3, 1]);
  });

  it('sends all parts of a message to one session, the next message to the next session', () => {
    originator.originate(request({ parts: 2 }));
    originator.originate(request());
    expect(channels.map((c) => c.written.length)).toEqual([2, 1]);
  });

  it('spreads the parts over the sessions with spreadParts', () => {
    const record = originator.originate(request({ parts: 3, spreadParts: true }));
    expect(record.deliveries.map((d) => d.session.id)).toEqual([1, 2, 1]);
  });

  it('matches answers by session and sequence number, and leaves unknown ones to the receipts', () => {
    const record = originator.originate(request());
    const [channel] = channels as [FakeChannel];
    expect(originator.acknowledge(channels[1] as FakeChannel, 1, 0)).toBe(false);
    expect(originator.acknowledge(channel, 99, 0)).toBe(false);
    expect(originator.acknowledge(channel, 1, 0x64)).toBe(true);
    expect(originator.acknowledge(channel, 1, 0)).toBe(false); // answered once only
    expect(record.deliveries[0]?.response).toEqual({ status: 0x64, receivedAt: new Date(now), lost: false });
  });

  it('resends after resendAfterMs, to another session when the first one is gone, and notes a resend with nowhere to go', () => {
    const record = originator.originate(request({ parts: 2, loseFirstResponse: true, resendAfterMs: 500 }));
    const first = channels[0] as FakeChannel;
    originator.acknowledge(first, 1, 0);
    first.canReceive = false;
    jest.advanceTimersByTime(499);
    expect(record.deliveries).toHaveLength(2);
    jest.advanceTimersByTime(1);
    expect(record.deliveries.map((d) => [d.part, d.reason, d.session.id, d.response?.lost])).toEqual([
      [1, 'first', 1, true], [2, 'first', 1, undefined], [1, 'resend', 2, undefined], [2, 'resend', 2, undefined],
    ]);
    expect(channels[1]?.written.map((p) => p.shortMessage.toString('hex'))).toEqual(first.written.map((p) => p.shortMessage.toString('hex')));

    const alone = originator.originate(request({ loseFirstResponse: true, resendAfterMs: 10 }));
    channels.forEach((c) => (c.canReceive = false));
    jest.advanceTimersByTime(10);
    expect(alone.unsentResends).toEqual([{ part: 1, dueAt: new Date(now) }]);
  });

  it('refuses when no session can receive, and forgets records and pending resends on clear', () => {
    originator.originate(request({ loseFirstResponse: true }));
    expect(originator.clear()).toBe(1);
    jest.advanceTimersByTime(5000);
    expect(channels[0]?.written).toHaveLength(1);
    expect(originator.list()).toEqual([]);
    channels = [];
    expect(() => originator.originate(request())).toThrow(NoReceiverError);
  });
});
