import { AGENT_TOKEN_COMMAND_TOPIC } from '@seed/agent-token-contracts';
import { commandTopic, replyTopic } from '@seed/platform-kafka';
import type { ServiceDefinition } from '@seed/platform-nest';
import { SMS_BATCH_COMMAND_TOPIC } from '@seed/sms-batch-contracts';
import { VERIFICATION_COMMAND_PARTITIONS, VERIFICATION_COMMAND_TOPIC } from '@seed/verification-contracts';
import { accountsMigrations } from './accounts/accounts.migrations';

export const GATEWAY_REPLY_TOPIC = 'api-gateway.replies.v1';

export const gatewayService: ServiceDefinition = {
  name: 'api-gateway',
  schema: 'api_gateway',
  migrations: accountsMigrations,
  // Requests during a PostgreSQL or Kafka outage get the contract's 503 from here (see ServiceDefinition).
  readyWithoutDatabase: true,
  topics: [commandTopic(SMS_BATCH_COMMAND_TOPIC), commandTopic(AGENT_TOKEN_COMMAND_TOPIC), { ...commandTopic(VERIFICATION_COMMAND_TOPIC), partitions: VERIFICATION_COMMAND_PARTITIONS, shared: false }, replyTopic(GATEWAY_REPLY_TOPIC)],
};
