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
  private readonly producer: Producer;
  private connected: Promise<void> | undefined;
  private waiting: PendingSend[] = [];
  private inFlight = false;

  constructor(private readonly connection: KafkaConnection) {
    this.producer = connection.kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      createPartitioner: keyPartitioner,
    });
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
    await this.producer.send({ topic, acks: -1, messages: records.map((r) => ({ ...r })) });
  }

  async disconnect(): Promise<void> {
    if (!this.connected) return;
    this.connected = undefined;
    await this.producer.disconnect();
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
        try {
          await this.producer.sendBatch({
            topicMessages: [...byTopic.values()],
            acks: -1,
            compression: bytes >= COMPRESS_FROM_BYTES ? CompressionTypes.GZIP : CompressionTypes.None,
          });
          for (const send of batch) send.resolve();
        } catch (error) {
          for (const send of batch) send.reject(error);
        }
      }
    } finally {
      this.inFlight = false;
    }
  }
}
