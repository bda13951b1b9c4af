import { CompressionTypes, type Message, type Producer, type TopicMessages } from 'kafkajs';
import { keyPartitioner } from './key-partitioner';
import type { KafkaConnection } from './kafka-connection';
import { EncodedJson, type OutgoingRecord } from './kafka-record';

interface PendingSend {
  topic: string;
  messages: Message[];
  bytes: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Below this many bytes a request goes uncompressed: gzip pays off on event batches, not on single
 * commands and replies, where it only adds CPU and latency. Why GZIP from 4 KiB:
 * docs/adr/0016-kafka-compression-gzip-from-4kib.md.
 */
const COMPRESS_FROM_BYTES = 4096;

/**
 * Broker answers that end an idempotent producer's identity: the broker and the producer no longer
 * agree on the sequence numbers of its producer id (seen after a broker restart under load, as a
 * partition's leader moved mid-batch), or the id is gone. kafkajs neither retries nor recovers
 * from them: every later send of that producer fails the same way (seen for minutes, until the
 * process restarts). The Java client bumps the epoch; the equivalent here is a new producer.
 */
const LOST_PRODUCER_IDENTITY = new Set(['OUT_OF_ORDER_SEQUENCE_NUMBER', 'UNKNOWN_PRODUCER_ID', 'INVALID_PRODUCER_EPOCH']);

/**
 * An idempotent producer (no duplicates from its own retries, order kept per partition) whose
 * sends resolve only once the broker acknowledged them, so failures reach the caller.
 *
 * An idempotent producer has one request in flight at a time, and kafkajs makes a request per
 * `send`: concurrent callers (a gateway sending hundreds of commands a second, a service replying
 * to them) would queue behind each other's round trips. So sends made while a request is in flight
 * are coalesced into the next one: one `sendBatch` for all of them, each caller resolved (or
 * rejected) with its outcome. Order per topic and key is the order of the calls.
 */
export class MessageProducer {
  private producer: Producer;
  private connected: Promise<void> | undefined;
  private waiting: PendingSend[] = [];
  private inFlight = false;
  /** How many times a producer was replaced after the broker stopped accepting its identity. */
  renewals = 0;

  constructor(private readonly connection: KafkaConnection) {
    this.producer = this.newProducer();
  }

  connect(): Promise<void> {
    // A failed attempt is forgotten, so the next send tries again instead of repeating the old error.
    this.connected ??= this.producer.connect().catch((error: unknown) => {
      this.connected = undefined;
      throw error;
    });
    return this.connected;
  }

  async send(topic: string, records: readonly OutgoingRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.connect();
    let bytes = 0;
    const messages = records.map((r) => {
      const value = r.value instanceof EncodedJson ? r.value.text : JSON.stringify(r.value);
      bytes += value.length;
      return { key: r.key, value, headers: r.headers };
    });
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ topic: this.connection.topic(topic), messages, bytes, resolve, reject });
      if (!this.inFlight) void this.pump();
    });
  }

  /** Forwards records as they are (dead letters keep the original bytes); `topic` is already prefixed. */
  async sendRaw(topic: string, records: readonly { key: string; value: Buffer | null; headers: Record<string, string> }[]): Promise<void> {
    await this.connect();
    const producer = this.producer;
    try {
      await producer.send({ topic, acks: -1, messages: records.map((r) => ({ ...r })) });
    } catch (error) {
      this.renewIfLost(producer, error);
      throw error;
    }
  }

  async disconnect(): Promise<void> {
    if (!this.connected) return;
    this.connected = undefined;
    await this.producer.disconnect();
  }

  private newProducer(): Producer {
    return this.connection.kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      createPartitioner: keyPartitioner,
    });
  }

  /**
   * After an answer that ends the producer's identity, later sends go through a new producer (a new
   * producer id from the broker). The failed request's callers still get their error: some of its
   * partitions may have been written, and a resend under a new id would not be deduplicated by the
   * broker, so resending is theirs to decide (each has an idempotent way: a command id, an outbox).
   */
  private renewIfLost(failed: Producer, error: unknown): void {
    if (failed !== this.producer || !lostIdentity(error)) return;
    this.renewals += 1;
    this.connection.logger.warn({ err: error, renewals: this.renewals }, 'the broker no longer accepts this producer\'s sequence numbers; sending through a new producer');
    this.producer = this.newProducer();
    const wasConnected = this.connected !== undefined;
    this.connected = undefined;
    if (wasConnected) void failed.disconnect().catch(() => undefined);
  }

  /** Sends everything waiting as one request, then whatever arrived meanwhile, until none is left. */
  private async pump(): Promise<void> {
    this.inFlight = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting;
        this.waiting = [];
        const byTopic = new Map<string, TopicMessages>();
        let bytes = 0;
        for (const send of batch) {
          bytes += send.bytes;
          const entry = byTopic.get(send.topic);
          if (entry) entry.messages.push(...send.messages);
          else byTopic.set(send.topic, { topic: send.topic, messages: [...send.messages] });
        }
        const producer = this.producer;
        try {
          await this.connect();
          await producer.sendBatch({
            topicMessages: [...byTopic.values()],
            acks: -1,
            compression: bytes >= COMPRESS_FROM_BYTES ? CompressionTypes.GZIP : CompressionTypes.None,
          });
          for (const send of batch) send.resolve();
        } catch (error) {
          this.renewIfLost(producer, error);
          for (const send of batch) send.reject(error);
        }
      }
    } finally {
      this.inFlight = false;
    }
  }
}

/** Whether the error, or one it wraps (kafkajs wraps in `cause`, `originalError` and `errors`), ends the producer's identity. */
function lostIdentity(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 4) return false;
  const e = error as { type?: unknown; cause?: unknown; originalError?: unknown; errors?: unknown };
  if (typeof e.type === 'string' && LOST_PRODUCER_IDENTITY.has(e.type)) return true;
  const inner = [e.cause, e.originalError, ...(Array.isArray(e.errors) ? e.errors : [])];
  return inner.some((cause) => lostIdentity(cause, depth + 1));
}
