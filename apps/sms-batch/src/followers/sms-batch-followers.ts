import type { Provider } from '@nestjs/common';
import { MessageProducer, OutboxRelay } from '@seed/platform-kafka';
import type { SubscriptionRegistry } from '@seed/platform-nest';
import { SMS_BATCH_EVENT_TOPIC } from '@seed/sms-batch-contracts';
import { SMS_BATCH_PUBLIC_SHAPE } from '../public-events';
import type { SmsBatchConfig } from '../sms-batch.config';
import { smsBatchProjections } from '../sms-batch.service';

/** The relay's linger (OUTBOX_RELAY_LINGER_MS), for the module that registers the followers. */
export const RELAY_LINGER_MS = Symbol('RELAY_LINGER_MS');
export const relayLingerProvider = (config: Pick<SmsBatchConfig, 'OUTBOX_RELAY_LINGER_MS'>): Provider => ({ provide: RELAY_LINGER_MS, useValue: config.OUTBOX_RELAY_LINGER_MS });

/**
 * The followers of sms-batch's log: the read models (and the outbound queue, which the sender waits
 * on: never lingering), and the relay to its event topic, lingering `relayLingerMs` after a partial
 * batch (OUTBOX_RELAY_LINGER_MS).
 */
export function registerSmsBatchFollowers(subscriptions: SubscriptionRegistry, producer: MessageProducer, schema: string, relayLingerMs: number): void {
  for (const projection of smsBatchProjections(schema)) subscriptions.register(projection);
  subscriptions.register(new OutboxRelay(producer, SMS_BATCH_EVENT_TOPIC, SMS_BATCH_PUBLIC_SHAPE), { lingerMs: relayLingerMs });
}
