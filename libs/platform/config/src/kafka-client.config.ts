import { IsBoolean, IsIn, IsNotEmpty, IsString, Matches, Validate, ValidatorConstraint, type ValidationArguments, type ValidatorConstraintInterface } from 'class-validator';
import { kafkaSecurity, kafkaSecurityProblem, parseBrokers, type KafkaSaslMechanism, type KafkaSecurity, type KafkaSecuritySettings } from '@seed/platform-kafka';
import { loadConfig } from './load-config';

/** The settings as kafkaSecurity() takes them. */
export function kafkaSecuritySettings(config: KafkaClientConfig): KafkaSecuritySettings {
  return {
    ssl: config.KAFKA_SSL,
    sslCaFile: config.KAFKA_SSL_CA,
    saslMechanism: config.KAFKA_SASL_MECHANISM,
    saslUsername: config.KAFKA_SASL_USERNAME,
    saslPassword: config.KAFKA_SASL_PASSWORD,
  };
}

@ValidatorConstraint({ name: 'kafkaSecurity' })
class KafkaSecurityConsistent implements ValidatorConstraintInterface {
  private problem: string | undefined;

  validate(_: unknown, args?: ValidationArguments): boolean {
    this.problem = args && kafkaSecurityProblem(kafkaSecuritySettings(args.object as KafkaClientConfig));
    return this.problem === undefined;
  }

  defaultMessage(): string {
    return this.problem ?? 'inconsistent Kafka security settings';
  }
}

/**
 * How a process reaches Kafka: the brokers, the prefix of its topics, and the TLS and SASL settings
 * (docs/security.md, "Kafka"). Services read it as part of PlatformConfig; the tools that talk to
 * the brokers (benchmarks, the e2e tests' readers) read it alone.
 */
export class KafkaClientConfig {
  /** Comma-separated host:port list. */
  @IsString()
  @IsNotEmpty()
  KAFKA_BROKERS = '';

  /** Prefix for every topic and consumer group, so that several installations can share a cluster. */
  @Matches(/^[a-z0-9._-]*$/)
  KAFKA_TOPIC_PREFIX = '';

  /** TLS to the brokers, their certificates verified against KAFKA_SSL_CA or the system's CAs. */
  @IsBoolean()
  KAFKA_SSL = false;

  /** PEM file of the CA that signs the brokers' certificates (Strimzi: the cluster CA's ca.crt); implies KAFKA_SSL. */
  @IsString()
  KAFKA_SSL_CA = '';

  /** SASL mechanism: scram-sha-512 (Strimzi's `scram-sha-512` users), scram-sha-256, plain (TLS only), or none. */
  @IsIn(['', 'scram-sha-512', 'scram-sha-256', 'plain'])
  @Validate(KafkaSecurityConsistent)
  KAFKA_SASL_MECHANISM: KafkaSaslMechanism = '';

  /** The service's own principal (k8s: the KafkaUser of the same name); never another service's. */
  @IsString()
  KAFKA_SASL_USERNAME = '';

  /** Its password (Strimzi: key `password` of the KafkaUser's Secret). Never logged. */
  @IsString()
  KAFKA_SASL_PASSWORD = '';
}

/** The kafkajs client options of a tool that reads the same settings as the services. */
export function kafkaClientOptions(env: NodeJS.ProcessEnv = process.env): { brokers: string[]; prefix: string; security: KafkaSecurity } {
  const config = loadConfig(KafkaClientConfig, env);
  return { brokers: parseBrokers(config.KAFKA_BROKERS), prefix: config.KAFKA_TOPIC_PREFIX, security: kafkaSecurity(kafkaSecuritySettings(config)) };
}
