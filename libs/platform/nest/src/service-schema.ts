/** The Postgres schema this service instance owns (DATABASE_SCHEMA_PREFIX + the service's schema). */
export class ServiceSchema {
  constructor(readonly name: string) {}
}
