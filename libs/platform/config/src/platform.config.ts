import { IsBoolean, IsIn, IsInt, Matches, Max, Min, Validate } from 'class-validator';
import { KafkaClientConfig } from './kafka-client.config';
import { SecureConnections } from './secure-connections';

/**
 * Settings every service shares. Each property is an environment variable of the same name;
 * the initial value is the default. Apps extend this class with their own settings.
 */
export class PlatformConfig extends KafkaClientConfig {
  /** postgres://user:password@host:port/database */
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// URL' })
  DATABASE_URL = '';

  /**
   * true: the service refuses to start unless PostgreSQL is reached over TLS that checks the
   * server's name (DATABASE_URL `sslmode=verify-full`) and Kafka over TLS as a SASL user. The k8s
   * base sets it; a local `npm start` and k8s/overlays/dev-plaintext/ leave it off.
   */
  @IsBoolean()
  @Validate(SecureConnections)
  REQUIRE_SECURE_CONNECTIONS = false;

  /**
   * Prepended to each service's Postgres schema name (several installations, or test runs, share one
   * database). Not `pg_`: Postgres reserves schema names that start with it.
   */
  @Matches(/^(?!pg_)([a-z_][a-z0-9_]{0,40})?$/, { message: 'must be lower-case letters, digits and _ (at most 41), not starting with a digit or pg_' })
  DATABASE_SCHEMA_PREFIX = '';

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  @IsInt()
  @Min(1)
  @Max(200)
  DATABASE_POOL_SIZE = 10;

  /**
   * How long a pooled connection may sit idle before it is closed. node-postgres closes them after
   * 10 s, so a service that paused longer (between bursts of traffic) opened new ones, each a
   * fresh PostgreSQL backend with cold caches and its statements to prepare again, and its first
   * burst ran slower. Ten minutes, like HikariCP's default; 0 keeps idle connections for good
   * (docs/adr/0040-pooled-connections-idle-ten-minutes.md).
   */
  @IsInt()
  @Min(0)
  @Max(86_400_000)
  DATABASE_POOL_IDLE_MS = 600_000;

  /**
   * Parameterised queries as named prepared statements, parsed and planned once per connection.
   * false for a connection pooler that cannot keep them (PgBouncer in transaction mode before 1.21).
   */
  @IsBoolean()
  DATABASE_PREPARED_STATEMENTS = true;

  /** Port of the service's health and metrics endpoint. */
  @IsInt()
  @Min(0)
  @Max(65535)
  HEALTH_PORT = 0;

  /**
   * How long start-up waits for PostgreSQL and Kafka (connections refused, a broker whose group
   * coordinator is still loading, topics without a leader yet) before the service gives up with one
   * error and exits. Meanwhile it answers /health/live and reports not ready on /health/ready.
   */
  @IsInt()
  @Min(1000)
  START_TIMEOUT_MS = 120_000;

  /** Replication factor of the topics the platform creates (3 on a production cluster). */
  @IsInt()
  @Min(1)
  @Max(5)
  KAFKA_REPLICATION_FACTOR = 1;

  /**
   * Partitions of the command and event topics the platform creates (those read in a shared
   * consumer group): the most replicas that share one topic's records. At least the largest replica
   * count the autoscalers allow (8 in k8s/). Topics that exist keep theirs (k8s/README.md, "Partitions").
   */
  @IsInt()
  @Min(1)
  @Max(1000)
  KAFKA_TOPIC_PARTITIONS = 12;
}
