import type { AgentLoggedInV1, GuestLinkSentV1, RoomCreatedV1, RoomExpiredV1 } from '@seed/agent-token-contracts';
import { quoteSchema, type Projection, type SqlExecutor, type StoredEvent } from '@seed/platform-event-store';

/**
 * The rooms read model: one row per room with its state. The expiry sweeper finds waiting rooms
 * past their expiry here; operators can look rooms up by account and call_reference. Idempotent
 * per event and clock-free, so a replay gives the same rows.
 */
export class RoomsProjection implements Projection {
  readonly name = 'rooms';
  readonly tables = ['rooms'];
  readonly types = ['RoomCreated', 'AgentLoggedIn', 'GuestLinkSent', 'RoomExpired'];
  private readonly table: string;

  constructor(schema: string) {
    this.table = `${quoteSchema(schema)}.rooms`;
  }

  async handle(events: readonly StoredEvent[], db: SqlExecutor): Promise<void> {
    for (const event of events) {
      switch (event.type) {
        case 'RoomCreated': {
          const r = event.data as RoomCreatedV1;
          await db.query(
            `INSERT INTO ${this.table} (room_id, account_id, call_reference, phone_number, state, created_at, expires_at)
             VALUES ($1, $2, $3, $4, 'waiting', $5, $6) ON CONFLICT (room_id) DO NOTHING`,
            [r.roomId, r.accountId, r.callReference, r.phoneNumber, r.createdAt, r.expiresAt],
          );
          break;
        }
        case 'AgentLoggedIn': {
          const j = event.data as AgentLoggedInV1;
          await db.query(`UPDATE ${this.table} SET state = 'agent_joined', joined_at = $2 WHERE room_id = $1`, [j.roomId, j.loggedInAt]);
          break;
        }
        case 'GuestLinkSent': {
          const s = event.data as GuestLinkSentV1;
          await db.query(`UPDATE ${this.table} SET guest_sms_umid = $2 WHERE room_id = $1`, [s.roomId, s.umid]);
          break;
        }
        case 'RoomExpired': {
          const x = event.data as RoomExpiredV1;
          await db.query(`UPDATE ${this.table} SET state = 'expired', expired_at = $2 WHERE room_id = $1 AND state = 'waiting'`, [x.roomId, x.expiredAt]);
          break;
        }
      }
    }
  }
}
