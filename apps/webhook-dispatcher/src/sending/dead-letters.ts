import { DataSource } from 'typeorm';
import { PLAN_EACH_CALL } from '@seed/platform-event-store';
import type { DeadLetterView } from '@seed/webhook-dispatcher-contracts';
import type { DeliveryOutcomes } from './delivery-outcomes';

interface DeadRow {
  delivery_id: string;
  umid: string;
  url: string;
  state: string;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  created_at: Date;
  finished_at: Date;
  body: string;
}

/** Deliveries that ended dead: how they get there past a broken endpoint's window, and the admin API's reads of them. */
export class DeadLetters {
  constructor(
    private readonly dataSource: DataSource,
    private readonly outcomes: DeliveryOutcomes,
    /** The service's quoted schema. */
    private readonly s: string,
  ) {}

  /**
   * Dead-letters deliveries of endpoints whose circuit breaker is open (or half-open, probing) that
   * no one holds and whose retry window has passed: such an endpoint gets one probe per cool-down,
   * so its backlog would otherwise stay pending long after the window (a change waiting behind an
   * earlier one follows once that one ended). The breakers are the shared ones: any replica's
   * sweep ends them. Returns how many ended.
   */
  async expireHeldBack(maxAgeMs: number, limit = 1000): Promise<number> {
    const broken: { origin: string }[] = await this.dataSource.query(`SELECT origin FROM ${this.s}.delivery_endpoints WHERE open_until IS NOT NULL`);
    if (broken.length === 0) return 0;
    const rows: { delivery_id: string }[] = await this.dataSource.query(
      `${PLAN_EACH_CALL} SELECT delivery_id FROM ${this.s}.deliveries
        WHERE state = 'pending' AND origin = ANY($1::text[]) AND next_attempt_at < 'infinity' AND (lease_until IS NULL OR next_attempt_at <= now())
          AND window_start <= now() - make_interval(secs => $2::double precision / 1000)
        LIMIT $3`,
      [broken.map((b) => b.origin), maxAgeMs, limit],
    );
    const at = new Date().toISOString();
    const detail = 'circuit breaker open: not tried again within the retry window';
    return (await this.outcomes.decide(rows.map((r) => ({ type: 'Expire' as const, deliveryId: r.delivery_id, at, maxAgeMs, detail })), at)).decided.length;
  }

  async deadLetters(accountId: string, limit = 1000): Promise<DeadLetterView[]> {
    const rows: DeadRow[] = await this.dataSource.query(
      `SELECT delivery_id, umid, url, state, attempts, last_status, last_error, created_at, finished_at, body
         FROM ${this.s}.deliveries WHERE account_id = $1 AND state = 'dead' ORDER BY finished_at, delivery_id LIMIT $2`,
      [accountId, limit],
    );
    return rows.map((r) => ({
      deliveryId: r.delivery_id,
      umid: r.umid,
      url: r.url,
      state: r.state,
      attempts: r.attempts,
      lastStatus: r.last_status,
      lastError: r.last_error,
      createdAt: new Date(r.created_at).toISOString(),
      deadLetteredAt: new Date(r.finished_at).toISOString(),
      body: JSON.parse(r.body) as unknown,
    }));
  }

  async deadLetterIds(accountId: string): Promise<string[]> {
    const rows: { delivery_id: string }[] = await this.dataSource.query(
      `SELECT delivery_id FROM ${this.s}.deliveries WHERE account_id = $1 AND state = 'dead'`,
      [accountId],
    );
    return rows.map((r) => r.delivery_id);
  }
}
