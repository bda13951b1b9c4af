import type { Logger } from 'pino';
import type { CarrierFleet } from '../carrier/carrier-fleet';
import type { MessageLifecycleWriter } from './message-lifecycle.writer';
import { MessageSender, type SenderSettings } from './message-sender';
import type { OutboundQueueRepository } from './outbound-queue.repository';

const settings: SenderSettings = {
  claimSize: 10,
  leaseMs: 60_000,
  idleMs: 10,
  stopGraceMs: 300,
  defaultSource: 'Seed',
  retryBaseMs: 10,
  retryMaxMs: 100,
  textOf: (stored) => stored,
  optedOut: () => false,
};

/** A sender with nothing to send, whose writer's last flush is `drain`. */
function senderWith(drain: () => Promise<void>) {
  const errors: string[] = [];
  const logger = { error: (_: unknown, msg: string) => errors.push(msg), warn: () => undefined, debug: () => undefined } as unknown as Logger;
  const queue = { claim: () => Promise.resolve([]) } as unknown as OutboundQueueRepository;
  const fleet = { anyBound: () => true, localCarriers: () => [] } as unknown as CarrierFleet;
  const writer = { drain } as unknown as MessageLifecycleWriter;
  return { sender: new MessageSender(queue, fleet, writer, logger, settings), errors };
}

describe('MessageSender stop', () => {
  it('waits for the last records to be written', async () => {
    let drained = false;
    const { sender, errors } = senderWith(
      () =>
        new Promise<void>((resolve) =>
          setTimeout(() => {
            drained = true;
            resolve();
          }, 100),
        ),
    );
    sender.start();
    await sender.stop();
    expect(drained).toBe(true);
    expect(errors).toEqual([]);
  });

  it('gives up after stopGraceMs when what it waits for does not end, and says so', async () => {
    const { sender, errors } = senderWith(() => new Promise(() => undefined));
    sender.start();
    const started = Date.now();
    await sender.stop();
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(1000);
    expect(errors).toEqual([expect.stringContaining('did not stop within SEND_STOP_GRACE_MS')]);
  });
});

describe('MessageSender with the opt-outs unknown', () => {
  it('hands nothing to a carrier while it cannot tell whether the recipient said STOP: the message waits, unrecorded', async () => {
    const message = { umid: 'u-1', accountId: 'acme', subAccountId: 'acme_hq', destination: '447700900123', source: null, text: 'Hi', encoding: 'GSM7', expiry: null, attempts: 0, leaseToken: '1', traceparent: null, pinnedCarrier: null, tried: [], locked: false };
    const released: { umids: string[]; delayMs: number }[] = [];
    let claims = 0;
    const queue = {
      claim: () => Promise.resolve(claims++ === 0 ? [message] : []),
      release: (messages: { umid: string }[], delayMs: number) => {
        released.push({ umids: messages.map((m) => m.umid), delayMs });
        return Promise.resolve();
      },
    } as unknown as OutboundQueueRepository;
    const handedToCarrier: string[] = [];
    const fleet = { anyBound: () => true, localCarriers: () => [], table: () => (handedToCarrier.push('routed'), { routes: [], carriers: new Map() }) } as unknown as CarrierFleet;
    const recorded: unknown[] = [];
    const writer = { drain: () => Promise.resolve(), record: (item: unknown) => (recorded.push(item), Promise.resolve()) } as unknown as MessageLifecycleWriter;
    const logger = { error: () => undefined, warn: () => undefined, debug: () => undefined } as unknown as Logger;
    const sender = new MessageSender(queue, fleet, writer, logger, { ...settings, optedOut: () => 'unknown' });
    sender.start();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await sender.stop();
    expect(released).toEqual([{ umids: ['u-1'], delayMs: 2000 }]);
    expect(recorded).toEqual([]);
    expect(handedToCarrier).toEqual([]);
  });
});

