import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { quoteSchema } from '@seed/platform-event-store';
import { ServiceSchema } from '@seed/platform-nest';

/**
 * The one change the carrier fleet makes to the outbound queue: a message waits for the carrier
 * its route chose (its pin) only while that carrier can take it somewhere.
 */
@Injectable()
export class CarrierPinsRepository {
  private readonly s: string;

  constructor(
    private readonly dataSource: DataSource,
    schema: ServiceSchema,
  ) {
    this.s = quoteSchema(schema.name);
  }

  /**
   * Messages pinned to a carrier that can no longer take them (no session bound anywhere, disabled
   * or removed) are routed again: unpinned, and due now. Rows held by a sender are left to it, and
   * so are messages locked to their carrier (it accepted some of their parts).
   */
  async unpinExcept(routable: readonly string[]): Promise<number> {
    const result = await this.dataSource.query(
      `UPDATE ${this.s}.outbound_queue SET carrier_id = NULL, next_attempt_at = least(next_attempt_at, now())
        WHERE carrier_id IS NOT NULL AND NOT carrier_locked AND NOT (carrier_id = ANY($1::text[])) AND (lease_until IS NULL OR lease_until < now())`,
      [[...routable]],
    );
    return Array.isArray(result) && typeof result[1] === 'number' ? result[1] : 0;
  }
}
