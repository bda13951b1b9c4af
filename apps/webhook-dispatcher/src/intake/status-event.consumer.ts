import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import { MessageHeader } from '@seed/contracts';
import { isPermanentDatabaseError } from '@seed/platform-event-store';
import { deadLetterTopic, ResilientConsumer, type BatchMessage, type KafkaConnection, type MessageProducer, type RecordBatch } from '@seed/platform-kafka';
import { SMS_BATCH_EVENT_TOPIC } from '@seed/sms-batch-contracts';
import { STATUS_CHANGE_TYPES, type SourceEvent } from '@seed/webhook-dispatcher-domain';
import type { ClaimedDelivery } from '../sending/claimed-delivery';
import type { DirectDelivery } from '../sending/direct-delivery';
import type { SenderHandOver } from '../sending/sender-hand-over';
import type { DeliveryIntake } from './delivery-intake';

export const INTAKE_GROUP = 'webhook-dispatcher.sms-batch-events';
/** Records of sms-batch's topic that are not events, or whose handling fails for good (never expected): kept for an operator. */
export const INTAKE_DEAD_LETTERS = deadLetterTopic(`${SMS_BATCH_EVENT_TOPIC}.webhook-dispatcher`);
const CHUNK = 2000;
/** kafkajs's default fetch size per partition, which this intake has always read with. */
const FETCH_BYTES_PER_PARTITION = 1024 * 1024;

/**
 * Follows sms-batch's public topic in batches (ResilientConsumer's batch mode): each chunk of
 * records is handled in ONE transaction (deliveries scheduled, events recorded as processed), and
 * its offsets are committed only after that transaction committed: once a second and on stop, not after every fetch (an OffsetCommit per
 * fetch was more than one broker write per event at a few events a fetch); what a crash redelivers
 * is recognised as processed. A failure is retried with backoff for as long as it lasts (the
 * partition waits; nothing is skipped); on shutdown the uncommitted records are left to the next
 * owner of the partition. A record that is not an event, or that fails with a data error, is
 * dead-lettered, never dropped.
 */
export class StatusEventConsumer {
  private readonly consumer: ResilientConsumer;

  constructor(
    connection: KafkaConnection,
    producer: MessageProducer,
    private readonly dataSource: DataSource,
    private readonly intake: DeliveryIntake,
    logger: Logger,
    private readonly sink: SenderHandOver,
  ) {
    this.consumer = new ResilientConsumer(connection, producer, logger, {
      groupId: INTAKE_GROUP,
      topics: [SMS_BATCH_EVENT_TOPIC],
      deadLetterTopic: INTAKE_DEAD_LETTERS.name,
      maxBytesPerPartition: FETCH_BYTES_PER_PARTITION,
      // Three at once. A chunk's handling waits for its direct deliveries' answers, and a fetch's
      // next one for all its chunks; but each partition's offer of direct deliveries is sized for
      // the endpoint on its own, and twelve at once queued more behind its slots than it answered
      // before the write-down deadline (docs/adr/0042-webhook-intake-three-partitions-at-a-time.md).
      partitionsConsumedConcurrently: 3,
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
      const events: { event: SourceEvent; message: BatchMessage }[] = [];
      for (const message of chunk) {
        // An event whose type (the relay's header) is no status change is passed over unread:
        // a third of sms-batch's events are MessageQueued, the largest of them.
        const type = message.headers?.[MessageHeader.MessageType]?.toString();
        if (type !== undefined && !STATUS_CHANGE_TYPES.has(type)) continue;
        const event = parseSourceEvent(message.value);
        if (event) events.push({ event, message });
        else await batch.deadLetter(message, 'not an event envelope');
      }
      const { scheduled, held, direct } = await batch.retrying(() => this.accept(batch, events), 'status events not handled');
      if (scheduled > 0) this.sink.scheduled(held);
      // The chunk's offsets go (once this returns) only after its direct deliveries were sent or
      // written down: until then the events on the topic are their only record.
      // Heartbeats go on meanwhile: a write-down that waits for the database (restarting, say) must
      // not cost the group membership, or the partition's uncommitted events, delivered already,
      // would be handled (and posted) again after the rebalance.
      if (direct.length > 0 && this.sink.sendDirect) await batch.whileBeating(this.sink.sendDirect(direct));
    });
  }

  /**
   * The chunk in one transaction. A failure no retry can cure (a data error) would stop the
   * partition for good: then each event is tried on its own, and the ones that still fail that way
   * are dead-lettered with the reason.
   */
  private async accept(batch: RecordBatch, events: { event: SourceEvent; message: BatchMessage }[]): Promise<{ scheduled: number; held: ClaimedDelivery[]; direct: DirectDelivery[] }> {
    try {
      // A new offer and hand per attempt: a rolled-back attempt held nothing.
      const held: ClaimedDelivery[] = [];
      // What has somewhere to go is read first, outside a transaction: a chunk with nothing to
      // send (SMS without a callback URL, of accounts without a default one: an installation
      // without webhooks, or Verify's codes) costs one statement instead of three.
      const sourceEvents = events.map((e) => e.event);
      const read = await this.intake.targeted(this.dataSource, sourceEvents);
      if (read.targeted.length === 0) return { scheduled: 0, held, direct: [] };
      const directOffer = this.sink.sendDirect ? this.sink.directOffer?.() : undefined;
      const direct = directOffer ? { offer: directOffer, taken: [] as DirectDelivery[] } : undefined;
      const scheduled = await this.dataSource.transaction((tx) => this.intake.accept(tx, sourceEvents, new Date(), this.sink.offer(), held, direct, read));
      return { scheduled, held, direct: direct?.taken ?? [] };
    } catch (error) {
      if (!isPermanentDatabaseError(error)) throw error;
      let scheduled = 0;
      for (const { event, message } of events) {
        try {
          scheduled += await this.dataSource.transaction((tx) => this.intake.accept(tx, [event]));
        } catch (single) {
          if (!isPermanentDatabaseError(single)) throw single;
          await batch.deadLetter(message, `not handled: ${single instanceof Error ? single.message : String(single)}`.slice(0, 1000));
        }
      }
      return { scheduled, held: [], direct: [] };
    }
  }
}

/** A record's value as an event envelope of sms-batch's topic, or null when it is none. */
export function parseSourceEvent(value: Buffer | null): SourceEvent | null {
  try {
    const e = JSON.parse(value?.toString() ?? '') as Partial<SourceEvent>;
    if (typeof e.eventId !== 'string' || typeof e.type !== 'string' || typeof e.streamPosition !== 'number' || typeof e.occurredAt !== 'string') return null;
    if (typeof e.data !== 'object' || e.data === null) return null;
    return e as SourceEvent;
  } catch {
    return null;
  }
}
