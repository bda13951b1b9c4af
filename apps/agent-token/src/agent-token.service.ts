import { AGENT_TOKEN_COMMAND_TOPIC, AGENT_TOKEN_EVENT_TOPIC } from '@seed/agent-token-contracts';
import { commandTopic, deadLetterTopic, eventTopic, replyTopic } from '@seed/platform-kafka';
import type { ServiceDefinition } from '@seed/platform-nest';
import { SMS_BATCH_SERVICE_COMMAND_TOPIC } from '@seed/sms-batch-contracts';
import { roomMigrations } from './rooms/rooms.migrations';

/** Where sms-batch answers the guest-link SMS commands of this service. */
export const AGENT_TOKEN_REPLY_TOPIC = 'agent-token.replies.v1';

export const agentTokenService: ServiceDefinition = {
  name: 'agent-token',
  schema: 'agent_token',
  migrations: roomMigrations,
  topics: [
    commandTopic(AGENT_TOKEN_COMMAND_TOPIC),
    deadLetterTopic(AGENT_TOKEN_COMMAND_TOPIC),
    eventTopic(AGENT_TOKEN_EVENT_TOPIC),
    commandTopic(SMS_BATCH_SERVICE_COMMAND_TOPIC),
    replyTopic(AGENT_TOKEN_REPLY_TOPIC),
  ],
};
