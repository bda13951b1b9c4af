import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import { MessageHeader } from '@seed/contracts';
import { ResilientConsumer, type KafkaConnection, type MessageProducer, type RecordBatch } from '@seed/platform-kafka';
import { SMS_BATCH_EVENT_TOPIC } from '@seed/sms-batch-contracts';
import { callbackUrlProblem, FINAL_STATUS_TYPES, type SourceEvent } from '@seed/webhook-dispatcher-domain';
import type { DeliveryIntake } from '../intake/delivery-intake';
import { INTAKE_DEAD_LETTERS, parseSourceEvent } from '../intake/status-event.consumer';
import type { FinalStatusWatch } from './final-status-watch';

/** A consumer group of its own: nothing the intake commits, skips or rolls back changes what this one sees. */
export const WATCH_GROUP = 'webhook-dispatcher.final-status-watch';
const CHUNK = 2000;

/**
 * Follows sms-batch's public topic beside the intake and records each final status change that
 * has somewhere to go (the message's dlrCallbackUrl, else the account's default URL, as the
 * intake resolves it) in `final_status_watch`: the other side of the reconciliation, which the
 * intake's own offsets and records cannot vouch for. One insert per chunk; a failure is retried
 * for as long as it lasts, like the intake's.
 */
export class FinalStatusWatchConsumer {
  private readonly consumer: ResilientConsumer;

  constructor(
    connection: KafkaConnection,
    producer: MessageProducer,
    private readonly dataSource: DataSource,
    private readonly intake: DeliveryIntake,
    private readonly watch: FinalStatusWatch,
    logger: Logger,
  ) {
    this.consumer = new ResilientConsumer(connection, producer, logger, {
      groupId: WATCH_GROUP,
      topics: [SMS_BATCH_EVENT_TOPIC],
      deadLetterTopic: INTAKE_DEAD_LETTERS.name,
    });
  }

  start(): Promise<void> {
    return this.consumer.startBatches((batch) => this.handleBatch(batch));
  }

  stop(): Promise<void> {
    return this.consumer.stop();
  }

  private handleBatch(batch: RecordBatch): Promise<void> {
    return batch.eachChunk(CHUNK, async (chunk) => {
      const finals: SourceEvent[] = [];
      for (const message of chunk) {
        const type = message.headers?.[MessageHeader.MessageType]?.toString();
        if (type !== undefined && !FINAL_STATUS_TYPES.has(type)) continue;
        // A record that is no event is the intake's to dead-letter: it is not a final status either way.
        const event = parseSourceEvent(message.value);
        if (event && FINAL_STATUS_TYPES.has(event.type)) finals.push(event);
      }
      if (finals.length > 0) await batch.retrying(() => this.record(finals), 'final status changes not watched');
    });
  }

  private async record(finals: readonly SourceEvent[]): Promise<void> {
    const { targeted } = await this.intake.targeted(this.dataSource, finals);
    const watched = targeted
      .filter(({ url }) => !callbackUrlProblem(url))
      .map(({ event, change }) => ({ eventId: event.eventId, umid: change.umid, accountId: change.accountId, state: event.type }));
    await this.watch.watch(this.dataSource, watched);
  }
}
