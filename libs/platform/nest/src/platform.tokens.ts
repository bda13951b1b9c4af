import type { Migration, Upcaster } from '@seed/platform-event-store';
import type { TopicSpec } from '@seed/platform-kafka';

export const LOGGER = Symbol('LOGGER');
export const SERVICE_DEFINITION = Symbol('SERVICE_DEFINITION');

/** What a service tells the platform about itself. */
export interface ServiceDefinition {
  /** Kafka client id and log `service` field, e.g. `sms-batch`. */
  name: string;
  /** Default Postgres schema (DATABASE_SCHEMA overrides it). */
  schema: string;
  migrations: Migration[];
  /** Topics the service produces or consumes; created at boot when missing. */
  topics: TopicSpec[];
  upcasters?: Upcaster[];
}
