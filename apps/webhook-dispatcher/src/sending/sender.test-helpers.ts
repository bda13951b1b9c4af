import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { EventStore, eventStoreSchema, runMigrations } from '@seed/platform-event-store';
import { ServiceSchema } from '@seed/platform-nest';
import { parseKeyring } from '@seed/platform-secrets';
import type { KafkaConnection } from '@seed/platform-kafka';
import { dropSchema, eventually, openTestDataSource, testKeyring, testLogger } from '@seed/platform-testing';
import { WebhookHeader } from '@seed/webhook-dispatcher-contracts';
import type { AttemptOutcome, SourceEvent } from '@seed/webhook-dispatcher-domain';
import { AccountWebhooksStore, SecretSealer } from '../accounts/account-webhooks.store';
import { DeliveryIntake } from '../intake/delivery-intake';
import { webhookMigrations } from '../webhook.migrations';
import { DeliveryStore } from './delivery-store';
import { DirectWriteDown } from './direct-write-down';
import type { WebhookHttpClient } from './webhook-http-client';

/** The dispatcher's queue in a schema of its own: a pool, the delivery store, the intake that fills it and the sender's write-down. */
export interface TestDeliveryStore {
  ds: DataSource;
  deliveries: DeliveryStore;
  intake: DeliveryIntake;
  directWrites: DirectWriteDown;
}

export async function openTestDeliveryStore(schema: string): Promise<TestDeliveryStore> {
  const ds = await openTestDataSource(4);
  await runMigrations(ds, schema, [...eventStoreSchema, ...webhookMigrations]);
  const store = new EventStore(schema);
  const deliveries = new DeliveryStore(ds, store, new ServiceSchema(schema));
  const sealer = new SecretSealer(parseKeyring(testKeyring()));
  const intake = new DeliveryIntake(deliveries, new AccountWebhooksStore(store, new ServiceSchema(schema)), sealer, new ServiceSchema(schema), testLogger());
  return { ds, deliveries, intake, directWrites: new DirectWriteDown(deliveries, new ServiceSchema(schema)) };
}

export async function closeTestDeliveryStore(ds: DataSource | undefined, schema: string): Promise<void> {
  if (!ds) return;
  await dropSchema(ds, schema);
  await ds.destroy();
}

/** What a scripted client was asked to post. */
export interface Posted {
  url: string;
  umid: string;
  state: string;
  deliveryId: string;
}

/** An HTTP client whose answers the test scripts per call (with the calls to that URL so far); it records what was posted where. */
export function scriptedClient(answer: (posted: Posted, callsToUrl: number) => Promise<AttemptOutcome>): { posted: Posted[]; client: WebhookHttpClient } {
  const posted: Posted[] = [];
  const client = {
    post: async (url: string, body: string, headers: Record<string, string> = {}) => {
      const { payload } = JSON.parse(body) as { payload: { umid: string; status: { state: string } } };
      const p = { url, umid: payload.umid, state: payload.status.state, deliveryId: headers[WebhookHeader.DeliveryId] ?? '' };
      posted.push(p);
      return answer(p, posted.filter((q) => q.url === url).length);
    },
    destroy: () => undefined,
  };
  return { posted, client: client as unknown as WebhookHttpClient };
}

/** A status change of message `umid` as sms-batch publishes it (its envelope, the fields every change type reads). */
export type TestStatusChange = SourceEvent & { streamId: string; data: { umid: string; accountId: string; [field: string]: unknown } };

export function testStatusChange(
  type: 'MessageSent' | 'MessageDelivered' | 'MessageUndelivered',
  { accountId = 'acme', umid = randomUUID(), url }: { accountId?: string; umid?: string; url: string | null },
): TestStatusChange {
  const at = new Date().toISOString();
  return {
    eventId: randomUUID(),
    type,
    streamId: `sms-message-${umid}`,
    streamPosition: type === 'MessageSent' ? 2 : 3,
    occurredAt: at,
    data: {
      umid, batchId: randomUUID(), clientBatchId: null, clientMessageId: null, accountId, subAccountId: `${accountId}_hq`, destination: '447911123456', source: null,
      smsCount: 1, dlrCallbackUrl: url, carrierMessageIds: ['1'], sentAt: at, deliveredAt: at, undeliveredAt: at, status: 'UNDELIV', errorCode: '001',
    },
  };
}

/** Waits until consumer group `groupId`'s committed offsets reach the end of every partition of `topic` (a prefixed name). */
export async function committedToEnd(connection: KafkaConnection, groupId: string, topic: string, timeoutMs = 15_000): Promise<void> {
  const admin = connection.kafka.admin();
  await admin.connect();
  try {
    await eventually(async () => {
      const [high, [committed]] = await Promise.all([admin.fetchTopicOffsets(topic), admin.fetchOffsets({ groupId: connection.group(groupId), topics: [topic] })]);
      const end = high.reduce((n, p) => n + Number(p.high), 0);
      const done = (committed?.partitions ?? []).reduce((n, p) => n + Math.max(0, Number(p.offset)), 0);
      return done === end ? true : undefined;
    }, timeoutMs);
  } finally {
    await admin.disconnect();
  }
}
