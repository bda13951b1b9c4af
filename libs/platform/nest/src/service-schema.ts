/** The Postgres schema this service instance owns (its default, or DATABASE_SCHEMA). */
export class ServiceSchema {
  constructor(readonly name: string) {}
}
