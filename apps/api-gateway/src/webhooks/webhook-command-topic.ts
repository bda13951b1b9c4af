import { Injectable, type OnModuleInit } from '@nestjs/common';
import { commandTopic, ensureTopics, KafkaConnection } from '@seed/platform-kafka';
import { StartDeadline } from '@seed/platform-nest';
import { WEBHOOK_DISPATCHER_COMMAND_TOPIC } from '@seed/webhook-dispatcher-contracts';

/**
 * The gateway sends webhook commands; the topic must exist before the first one even when the
 * gateway starts before the dispatcher (which creates it too).
 */
@Injectable()
export class WebhookCommandTopic implements OnModuleInit {
  constructor(
    private readonly connection: KafkaConnection,
    private readonly deadline: StartDeadline,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.deadline.retry('kafka: webhook command topic', () => ensureTopics(this.connection, [commandTopic(WEBHOOK_DISPATCHER_COMMAND_TOPIC)]));
  }
}
