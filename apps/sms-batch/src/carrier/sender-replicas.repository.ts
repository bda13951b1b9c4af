import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { quoteSchema, rowsOf } from '@seed/platform-event-store';
import { ServiceSchema } from '@seed/platform-nest';

/** A replica is live while it announced itself within this time. */
const REPLICA_LIVE_MS = 5000;

/**
 * The sending replicas alive now, in PostgreSQL: each announces itself every fleet tick, and the
 * carriers' bind slots are shared out among the live ones.
 */
@Injectable()
export class SenderReplicasRepository {
  private readonly s: string;

  constructor(
    private readonly dataSource: DataSource,
    schema: ServiceSchema,
  ) {
    this.s = quoteSchema(schema.name);
  }

  /** Announces this replica and lists the live ones, in a stable order every replica agrees on. */
  async heartbeat(replicaId: string): Promise<string[]> {
    const rows = rowsOf<{ replica_id: string }>(
      await this.dataSource.query(
        `WITH seen AS (
           INSERT INTO ${this.s}.sender_replicas (replica_id, seen_at) VALUES ($1, now())
           ON CONFLICT (replica_id) DO UPDATE SET seen_at = now())
         SELECT replica_id FROM ${this.s}.sender_replicas
          WHERE seen_at > now() - make_interval(secs => $2::double precision / 1000) OR replica_id = $1
          ORDER BY replica_id`,
        [replicaId, REPLICA_LIVE_MS],
      ),
    );
    return rows.map((r) => r.replica_id);
  }

  /** A replica stopping: the others count it out at once, and take its share at their next tick. */
  async leave(replicaId: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM ${this.s}.sender_replicas WHERE replica_id = $1`, [replicaId]);
  }
}
