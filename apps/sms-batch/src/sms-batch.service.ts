import { ProjectionGroup } from '@seed/platform-event-store';
import { commandTopic, deadLetterTopic, eventTopic } from '@seed/platform-kafka';
import type { ServiceDefinition } from '@seed/platform-nest';
import { SMS_BATCH_COMMAND_TOPIC, SMS_BATCH_EVENT_TOPIC, SMS_BATCH_SERVICE_COMMAND_TOPIC } from '@seed/sms-batch-contracts';
import { inboundMigrations } from './inbound/inbound.migrations';
import { InboundMessagesProjection } from './inbound/inbound-messages.projection';
import { optOutMigrations, OptOutsProjection } from './opt-outs/opt-outs.projection';
import { BatchesProjection } from './read-models/batches.projection';
import { MessagesProjection } from './read-models/messages.projection';
import { clientBatchMigrations, messageErrorMigrations, readModelMigrations } from './read-models/read-model.migrations';
import { OutboundQueueProjection } from './sending/outbound-queue.projection';
import { sendingMigrations } from './sending/sending.migrations';
import { idempotencyKeyMigrations } from './submit-batch/idempotency-keys';

export const smsBatchService: ServiceDefinition = {
  name: 'sms-batch',
  schema: 'sms_batch',
  migrations: [...readModelMigrations, ...clientBatchMigrations, ...sendingMigrations, ...messageErrorMigrations, ...idempotencyKeyMigrations, ...optOutMigrations, ...inboundMigrations],
  topics: [commandTopic(SMS_BATCH_COMMAND_TOPIC), commandTopic(SMS_BATCH_SERVICE_COMMAND_TOPIC), deadLetterTopic(SMS_BATCH_COMMAND_TOPIC), eventTopic(SMS_BATCH_EVENT_TOPIC)],
};

/**
 * Every read model of the service (the outbound queue too), fed by one follower of the log;
 * `npm run replay -- sms-batch` rebuilds them all.
 */
export const smsBatchProjections = (schema: string) => [
  new ProjectionGroup('read-models', [new BatchesProjection(schema), new MessagesProjection(schema), new OutboundQueueProjection(schema), new OptOutsProjection(schema), new InboundMessagesProjection(schema)]),
];
