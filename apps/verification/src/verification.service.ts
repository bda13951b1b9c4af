import { commandTopic, deadLetterTopic, eventTopic, replyTopic } from '@seed/platform-kafka';
import type { ServiceDefinition } from '@seed/platform-nest';
import { SMS_BATCH_SERVICE_COMMAND_TOPIC } from '@seed/sms-batch-contracts';
import { VERIFICATION_COMMAND_PARTITIONS, VERIFICATION_COMMAND_TOPIC, VERIFICATION_EVENT_TOPIC } from '@seed/verification-contracts';
import { verificationMigrations } from './verification.migrations';

/** Where sms-batch answers the SMS commands of this service. */
export const VERIFICATION_REPLY_TOPIC = 'verification.replies.v1';

export const verificationService: ServiceDefinition = {
  name: 'verification',
  schema: 'verification',
  migrations: verificationMigrations,
  topics: [
    { ...commandTopic(VERIFICATION_COMMAND_TOPIC), partitions: VERIFICATION_COMMAND_PARTITIONS, shared: false },
    deadLetterTopic(VERIFICATION_COMMAND_TOPIC),
    eventTopic(VERIFICATION_EVENT_TOPIC),
    commandTopic(SMS_BATCH_SERVICE_COMMAND_TOPIC),
    replyTopic(VERIFICATION_REPLY_TOPIC),
  ],
};
