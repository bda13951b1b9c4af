import { ValidatorConstraint, type ValidationArguments, type ValidatorConstraintInterface } from 'class-validator';

/** What REQUIRE_SECURE_CONNECTIONS looks at. */
export interface ConnectionSettings {
  REQUIRE_SECURE_CONNECTIONS: boolean;
  DATABASE_URL: string;
  KAFKA_SSL: boolean;
  KAFKA_SSL_CA: string;
  KAFKA_SASL_MECHANISM: string;
}

/**
 * Why the connections fall short of REQUIRE_SECURE_CONNECTIONS, or undefined: PostgreSQL over TLS
 * that checks the server's certificate and name (`sslmode=verify-full`; verify-ca would take any
 * host the CA signed, require no certificate at all), and Kafka over TLS as a SASL user.
 */
export function secureConnectionsProblem(settings: ConnectionSettings): string | undefined {
  if (!settings.REQUIRE_SECURE_CONNECTIONS) return undefined;
  const problems: string[] = [];
  const sslmode = URL.canParse(settings.DATABASE_URL) ? new URL(settings.DATABASE_URL).searchParams.get('sslmode') : null;
  if (sslmode !== 'verify-full') problems.push(`DATABASE_URL has sslmode=${sslmode ?? '(none)'}, not verify-full`);
  if (!settings.KAFKA_SSL && !settings.KAFKA_SSL_CA) problems.push('Kafka is reached without TLS (set KAFKA_SSL_CA or KAFKA_SSL=true)');
  if (!settings.KAFKA_SASL_MECHANISM) problems.push('Kafka is reached without a SASL user (set KAFKA_SASL_MECHANISM)');
  return problems.length === 0 ? undefined : `REQUIRE_SECURE_CONNECTIONS is true but ${problems.join('; ')}`;
}

@ValidatorConstraint({ name: 'secureConnections' })
export class SecureConnections implements ValidatorConstraintInterface {
  private problem: string | undefined;

  validate(_: unknown, args?: ValidationArguments): boolean {
    this.problem = args && secureConnectionsProblem(args.object as ConnectionSettings);
    return this.problem === undefined;
  }

  defaultMessage(): string {
    return this.problem ?? 'connections are not secure';
  }
}
