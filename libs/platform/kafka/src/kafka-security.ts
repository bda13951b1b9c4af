import { readFileSync } from 'node:fs';
import type { KafkaConfig } from 'kafkajs';

export type KafkaSaslMechanism = '' | 'scram-sha-512' | 'scram-sha-256' | 'plain';

/** How a client proves itself to the brokers and checks them: the KAFKA_SSL* and KAFKA_SASL_* settings. */
export interface KafkaSecuritySettings {
  /** TLS to the brokers, verified against `sslCaFile` or, without one, the system's CAs. */
  ssl: boolean;
  /** PEM file of the CA that signs the brokers' certificates (Strimzi: the cluster CA's ca.crt). */
  sslCaFile: string;
  saslMechanism: KafkaSaslMechanism;
  saslUsername: string;
  saslPassword: string;
}

/** The `ssl` and `sasl` options of a kafkajs client; none of them for a plaintext, unauthenticated cluster. */
export type KafkaSecurity = Pick<KafkaConfig, 'ssl' | 'sasl'>;

/**
 * kafkajs options from the settings. A CA file implies TLS. Certificates are always verified
 * (`rejectUnauthorized` stays on): a client that accepts any certificate would hand its SCRAM
 * exchange and every message to whoever answers on the broker's address.
 */
export function kafkaSecurity(settings: KafkaSecuritySettings): KafkaSecurity {
  const tls = settings.ssl || settings.sslCaFile !== '';
  const ssl = !tls ? undefined : settings.sslCaFile ? { ca: [readFileSync(settings.sslCaFile, 'utf8')], rejectUnauthorized: true } : true;
  if (!settings.saslMechanism) return ssl ? { ssl } : {};
  const { saslUsername: username, saslPassword: password } = settings;
  const sasl =
    settings.saslMechanism === 'plain'
      ? { mechanism: 'plain' as const, username, password }
      : settings.saslMechanism === 'scram-sha-256'
        ? { mechanism: 'scram-sha-256' as const, username, password }
        : { mechanism: 'scram-sha-512' as const, username, password };
  return ssl ? { ssl, sasl } : { sasl };
}

/** Why the settings cannot work, or undefined; checked when the configuration is read. */
export function kafkaSecurityProblem(settings: KafkaSecuritySettings): string | undefined {
  if (!settings.saslMechanism) {
    return settings.saslUsername || settings.saslPassword ? 'KAFKA_SASL_USERNAME/KAFKA_SASL_PASSWORD are set but KAFKA_SASL_MECHANISM is not' : undefined;
  }
  if (!settings.saslUsername || !settings.saslPassword) return `KAFKA_SASL_MECHANISM=${settings.saslMechanism} needs KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD`;
  // PLAIN sends the password itself; SCRAM never does, but without TLS every record is readable.
  if (settings.saslMechanism === 'plain' && !settings.ssl && !settings.sslCaFile) return 'KAFKA_SASL_MECHANISM=plain sends the password in clear: set KAFKA_SSL=true or KAFKA_SSL_CA';
  return undefined;
}
