import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, type Logger } from '@seed/platform-logging';
import { CarrierFaults } from './carrier-faults';
import { ReceiptDispatcher } from './delivery-receipts';
import { InboundOriginator, type InboundChannel } from './inbound-originator';
import { createInspectionServer } from './inspection-api';
import { MessageIdGenerator } from './message-ids';
import { MessageStore } from './message-store';
import { zeroCounters } from './simulator-stats';
import { resolveSimulatorConfig, type SimulatorConfig } from './simulator.config';
import { SmscServer } from './smsc-server';
import { Throttle } from './throttle';

export interface RunningSimulator {
  /** The ports actually bound (useful when 0 asked for random ones). */
  smppPort: number;
  httpPort: number;
  /** The addresses actually bound: SMSC_HOST for SMPP, SMSC_HTTP_HOST (loopback by default) for the API. */
  smppAddress: string;
  httpAddress: string;
  stop(): Promise<void>;
}

export interface SimulatorOptions {
  /** Default: JSON logs on stdout at the configured level. */
  logger?: Logger;
  /** Drives final states, dropped connections, temporary errors and inbound shuffles; tests can make them deterministic. */
  random?: () => number;
}

const SUMMARY_INTERVAL_MS = 10_000;

/** Starts the SMPP listener and the inspection API; settings left out take their defaults. */
export async function startSimulator(settings: Partial<SimulatorConfig> = {}, options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const config = { current: resolveSimulatorConfig(settings) };
  const { host, httpHost, maxMessages, messageIdStart } = config.current;
  const logger = options.logger ?? createLogger('smsc-simulator', config.current.logLevel);
  const random = options.random ?? Math.random;
  const counters = zeroCounters();
  const store = new MessageStore(maxMessages);
  const receipts = new ReceiptDispatcher(config, counters);
  const faults = new CarrierFaults(config, random);
  const ids = new MessageIdGenerator(random, messageIdStart);
  // The sessions are looked up at each send: the server is built right after, with the originator in its context.
  const inbound: InboundOriginator = new InboundOriginator((): InboundChannel[] => smsc.receivers(), config, counters, random);
  const smsc = new SmscServer({ config, store, receipts, inbound, counters, ids, throttle: new Throttle(), faults, random, logger });
  const http = createInspectionServer({
    config,
    store,
    counters,
    faults,
    inbound,
    dropSessions: () => {
      const dropped = smsc.dropAll();
      counters.sessionsDropped += dropped;
      logger.info({ dropped }, 'smpp sessions dropped on request');
      return dropped;
    },
    gauges: () => ({
      sessions: smsc.sessionCount,
      boundSessions: smsc.boundSessionCount,
      receiptsQueued: receipts.queuedCount,
      receiptsInFlight: receipts.inFlightCount,
      messagesStored: store.size,
      inboundQueued: inbound.queuedCount,
      inboundAwaitingResponse: inbound.awaitingCount,
      submitsHeld: smsc.heldSubmits,
      bindRefusalRemainingMs: faults.bindRefusalRemainingMs,
    }),
  });

  const stop = async () => {
    clearInterval(summary);
    receipts.stop();
    inbound.stop();
    http.closeAllConnections();
    await Promise.all([smsc.close(), new Promise((resolve) => http.close(resolve))]);
  };

  let lastSubmits = 0;
  const summary = setInterval(() => {
    if (counters.submits === lastSubmits) return;
    const perSecond = Math.round(((counters.submits - lastSubmits) * 1000) / SUMMARY_INTERVAL_MS);
    lastSubmits = counters.submits;
    logger.info({ ...counters, submitsPerSecond: perSecond, sessions: smsc.sessionCount, receiptsQueued: receipts.queuedCount }, 'smsc simulator summary');
  }, SUMMARY_INTERVAL_MS);
  summary.unref();

  try {
    const smpp = await smsc.listen(host, config.current.smppPort);
    const api = await listen(http, httpHost, config.current.httpPort);
    return { smppPort: smpp.port, httpPort: api.port, smppAddress: smpp.address, httpAddress: api.address, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}
