import { Counter, Histogram } from 'prom-client';

/**
 * Handling of records by the platform's consumers (the command topics): per consumer group and
 * message type (the command type), how long a record took from its first attempt to its end, and
 * how it ended. Retries are inside one observation; each failed attempt also counts as a failure.
 */
export const recordHandlingSeconds = new Histogram({
  name: 'kafka_consumer_handling_duration_seconds',
  help: 'Time from the first attempt at a record to its end (handled, dead-lettered, or answered unavailable), by consumer group, message type and outcome',
  labelNames: ['group', 'type', 'outcome'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
});

export const recordHandlingFailures = new Counter({
  name: 'kafka_consumer_handling_failures_total',
  help: 'Attempts at handling a record that threw (each is retried, dead-lettered or answered unavailable), by consumer group and message type',
  labelNames: ['group', 'type'] as const,
});

export const consumerDeadLetters = new Counter({
  name: 'kafka_consumer_dead_letters_total',
  help: 'Records published to a dead-letter topic, by consumer group and the topic they came from',
  labelNames: ['group', 'topic'] as const,
});

export type HandlingOutcome = 'ok' | 'dead_lettered' | 'unavailable' | 'abandoned';

const MAX_TYPES = 100;
const knownTypes = new Set<string>();

/**
 * A record's message type as a label value. Types come from a header any producer could set, so
 * only the first hundred seen are kept as they are; past that they count as `other`, and a stray
 * producer cannot grow the number of series without end.
 */
export function typeLabel(type: string | undefined): string {
  if (!type) return 'unknown';
  if (knownTypes.has(type)) return type;
  if (knownTypes.size >= MAX_TYPES) return 'other';
  knownTypes.add(type);
  return type;
}

/** A topic's name as the services name it, without KAFKA_TOPIC_PREFIX. */
export function unprefixedTopic(topic: string, prefix: string): string {
  return prefix && topic.startsWith(prefix) ? topic.slice(prefix.length) : topic;
}
