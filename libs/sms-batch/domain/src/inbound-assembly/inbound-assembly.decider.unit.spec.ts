import type { InboundPart } from '../inbound';
import { decideInboundExpiry, decideInboundPart, EMPTY_INBOUND_STREAM, evolveInbound, type InboundArrival, type InboundStreamState } from './inbound-assembly.decider';

const T0 = '2030-01-15T10:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();
const addressee = { accountId: 'acme', subAccountId: 'acme_hq', inboundWebhookUrl: 'https://hooks.example.com/in' };
const gsm = (text: string) => Buffer.from(text, 'latin1').toString('base64'); // ASCII letters are their own GSM-7 septets
const single = (text: string): InboundPart => ({ source: '447700900123', destination: '447700100100', encoding: 'GSM7', userData: gsm(text), concatenation: null });
const part = (text: string, sequence: number, total = 3): InboundPart => ({ ...single(text), concatenation: { scheme: 'udh8', reference: 7, total, sequence } });
const arrival = (p: InboundPart, seconds = 0, umid = `u-${seconds}`): InboundArrival => ({ part: p, carrierId: 'default', receivedAt: at(seconds), umid, groupId: `g-${seconds}`, addressee, duplicateWindowMs: 120_000 });
const run = (state: InboundStreamState, a: InboundArrival) => {
  const events = decideInboundPart(a, state);
  return { events, state: events.reduce(evolveInbound, state) };
};

describe('inbound assembly', () => {
  it('records a single part as the message at once, with its keyword and addressee', () => {
    const { events } = run(EMPTY_INBOUND_STREAM, arrival(single(' stop ')));
    expect(events).toEqual([
      {
        type: 'InboundMessageReceived',
        schemaVersion: 1,
        data: {
          umid: 'u-0',
          accountId: 'acme',
          subAccountId: 'acme_hq',
          source: '447700900123',
          destination: '447700100100',
          body: ' stop ',
          encoding: 'GSM7',
          smsCount: 1,
          incomplete: false,
          keyword: 'opt-out',
          inboundWebhookUrl: 'https://hooks.example.com/in',
          carrierId: 'default',
          receivedAt: T0,
        },
      },
    ]);
  });

  it('takes the same part again within the window as the carrier’s resend, and after it as a new message', () => {
    const first = run(EMPTY_INBOUND_STREAM, arrival(single('Hello')));
    expect(run(first.state, arrival(single('Hello'), 30)).events).toEqual([]);
    expect(run(first.state, arrival(single('Hello'), 121)).events.map((e) => e.type)).toEqual(['InboundMessageReceived']);
  });

  it('joins parts that arrive out of order, ignoring a repeated part, into one message when the last arrives', () => {
    let state = EMPTY_INBOUND_STREAM;
    const types: string[] = [];
    for (const [p, s] of [[part('C', 3), 1], [part('A', 1), 2], [part('A', 1), 3], [part('B', 2), 4]] as const) {
      const step = run(state, arrival(p, s));
      types.push(...step.events.map((e) => e.type));
      state = step.state;
    }
    expect(types).toEqual(['InboundPartReceived', 'InboundPartReceived', 'InboundPartReceived', 'InboundMessageReceived']);
    const message = decideInboundPart(arrival(part('B', 2), 4), EMPTY_INBOUND_STREAM); // a lone part is only kept
    expect(message.map((e) => e.type)).toEqual(['InboundPartReceived']);
    expect(state.open).toBeNull();
    expect(state.last?.parts.map((p) => p.concatenation?.sequence)).toEqual([3, 1, 2]);
    // A part of it sent again after it was whole, within the window: a copy.
    expect(run(state, arrival(part('C', 3), 30)).events).toEqual([]);
  });

  it('delivers parts alone after they waited too long, marked incomplete, and not before', () => {
    const { state } = run(EMPTY_INBOUND_STREAM, arrival(part('A', 1, 2), 0));
    expect(decideInboundExpiry({ at: at(599), umid: 'u-late', addressee, maxWaitMs: 600_000 }, state)).toEqual([]);
    const [expired] = decideInboundExpiry({ at: at(600), umid: 'u-late', addressee, maxWaitMs: 600_000 }, state);
    expect(expired?.data).toMatchObject({ umid: 'u-late', body: 'A', smsCount: 1, incomplete: true, receivedAt: at(600) });
  });

  it('records a message to a number that is not the platform’s without an owner', () => {
    const [event] = decideInboundPart({ ...arrival(single('Hi')), addressee: null }, EMPTY_INBOUND_STREAM);
    expect(event?.data).toMatchObject({ accountId: null, subAccountId: null, inboundWebhookUrl: null });
  });
});
