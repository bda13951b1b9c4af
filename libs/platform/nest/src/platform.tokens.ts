import type { Migration, Upcaster } from '@seed/platform-event-store';
import type { TopicSpec } from '@seed/platform-kafka';

export const LOGGER = Symbol('LOGGER');
export const SERVICE_DEFINITION = Symbol('SERVICE_DEFINITION');

/** What a service tells the platform about itself. */
export interface ServiceDefinition {
  /** Kafka client id and log `service` field, e.g. `sms-batch`. */
  name: string;
  /** Postgres schema of the service (after DATABASE_SCHEMA_PREFIX). */
  schema: string;
  migrations: Migration[];
  /** Topics the service produces or consumes; created at boot when missing. */
  topics: TopicSpec[];
  upcasters?: Upcaster[];
  /**
   * Ready once started, whatever PostgreSQL does (default: ready only while it answers). For a
   * service that takes client traffic: a database outage is shared by every replica, and a
   * Kubernetes Service without ready endpoints would answer clients with the ingress's error
   * instead of the contract's 503.
   */
  readyWithoutDatabase?: boolean;
}
