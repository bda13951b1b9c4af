import { quoteSchema, type SqlExecutor } from '@seed/platform-event-store';

/**
 * Uniqueness of call_reference among an account's active rooms, in the transaction that creates
 * the room. A reference whose room is no longer active (expired, or its agent's token ran out) is
 * taken over; one still active is refused. Two concurrent creations with one reference meet on
 * the primary key: the second waits for the first and then sees its room as active.
 */
export class CallReferences {
  private readonly table: string;

  constructor(schema: string) {
    this.table = `${quoteSchema(schema)}.call_references`;
  }

  /** True when the reference is now this room's; false when an active room holds it. */
  async reserve(db: SqlExecutor, accountId: string, callReference: string, roomId: string, activeUntil: string, now: string): Promise<boolean> {
    const rows: unknown[] = await db.query(
      `INSERT INTO ${this.table} AS r (account_id, call_reference, room_id, active_until) VALUES ($1, $2, $3, $4)
       ON CONFLICT (account_id, call_reference) DO UPDATE
         SET room_id = EXCLUDED.room_id, active_until = EXCLUDED.active_until
         WHERE r.active_until <= $5
       RETURNING room_id`,
      [accountId, callReference, roomId, activeUntil, now],
    );
    return rows.length > 0;
  }

  /**
   * Locks the room's reservation for the login deciding on the room, so that a creation taking the
   * reference over at the expiry waits for that login (and then sees the room joined). False when
   * a later room holds the reference already: this room is over.
   */
  async holdFor(db: SqlExecutor, roomId: string): Promise<boolean> {
    const rows: unknown[] = await db.query(`SELECT 1 FROM ${this.table} WHERE room_id = $1 FOR UPDATE`, [roomId]);
    return rows.length > 0;
  }

  /** The room's agent joined: its reference stays taken for as long as the room can be used. */
  async extend(db: SqlExecutor, roomId: string, activeUntil: string): Promise<void> {
    await db.query(`UPDATE ${this.table} SET active_until = $2 WHERE room_id = $1`, [roomId, activeUntil]);
  }
}
