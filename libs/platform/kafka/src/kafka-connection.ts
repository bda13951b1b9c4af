import { Kafka, logLevel, type LogEntry } from 'kafkajs';
import type { Logger } from 'pino';
import { kafkaLogLevel } from './kafka-log-level';
import { applyKafkaJsIdleTimerFix } from './kafkajs-idle-timer.fix';
import type { KafkaSecurity } from './kafka-security';

export interface KafkaSettings {
  brokers: string[];
  clientId: string;
  /** Prepended to every topic and group name (several installations, or test files, share one cluster). */
  prefix: string;
  /** Replication factor of topics this platform creates (1 for a single local broker). */
  replicationFactor?: number;
  /** Partitions of the command and event topics it creates (KAFKA_TOPIC_PARTITIONS); their specs' count when unset. */
  sharedPartitions?: number;
  /** TLS and SASL options (kafkaSecurity()); none for a plaintext, unauthenticated cluster. */
  security?: KafkaSecurity;
}

/** The one place that builds a kafkajs client; its log lines go to the service's pino logger. */
export class KafkaConnection {
  readonly kafka: Kafka;

  constructor(
    readonly settings: KafkaSettings,
    readonly logger: Logger,
  ) {
    applyKafkaJsIdleTimerFix();
    this.kafka = new Kafka({
      clientId: settings.clientId,
      brokers: settings.brokers,
      ...settings.security,
      connectionTimeout: 5000,
      retry: { initialRetryTime: 200, retries: 10, maxRetryTime: 5000 },
      logLevel: logLevel.WARN,
      logCreator:
        () =>
        ({ level, log }: LogEntry) => {
          const { message, ...extra } = log;
          logger[kafkaLogLevel(level, log)]({ kafka: extra }, message);
        },
    });
  }

  topic(name: string): string {
    return `${this.settings.prefix}${name}`;
  }

  group(name: string): string {
    return `${this.settings.prefix}${name}`;
  }
}

export function parseBrokers(list: string): string[] {
  return list
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b.length > 0);
}
