import type { Logger } from '@seed/platform-logging';
import type { CarrierFaults } from './carrier-faults';
import type { ReceiptDispatcher } from './delivery-receipts';
import type { InboundOriginator } from './inbound-originator';
import type { MessageIdGenerator } from './message-ids';
import type { MessageStore } from './message-store';
import type { SimulatorCounters } from './simulator-stats';
import type { SimulatorConfig } from './simulator.config';
import type { Throttle } from './throttle';

/** What every SMPP session shares: the settings, the store, the receipts, the inbound messages and the counters. */
export interface SmscContext {
  config: { readonly current: SimulatorConfig };
  store: MessageStore;
  receipts: ReceiptDispatcher;
  inbound: InboundOriginator;
  counters: SimulatorCounters;
  ids: MessageIdGenerator;
  throttle: Throttle;
  faults: CarrierFaults;
  random: () => number;
  logger: Logger;
}
