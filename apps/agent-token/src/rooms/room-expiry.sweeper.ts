import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { FailureStreak } from '@seed/platform-logging';
import { quoteSchema, type CommandPipeline } from '@seed/platform-event-store';
import type { RoomStore } from './room-store';

/**
 * Records RoomExpired for waiting rooms past their expiry, so that subscribers learn of it.
 * Answers never wait for it: readers compute the expiry from the time (see roomStateAt). Each
 * room goes through the decider with the time of the sweep; a room an agent joined meanwhile
 * decides nothing. Replicas may sweep together: the expected version lets one of them win.
 */
export class RoomExpirySweeper {
  private running = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private readonly rooms: string;
  private readonly failures: FailureStreak;

  constructor(
    private readonly dataSource: DataSource,
    private readonly store: RoomStore,
    private readonly pipeline: CommandPipeline,
    schema: string,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {
    this.rooms = `${quoteSchema(schema)}.rooms`;
    this.failures = new FailureStreak(logger, 'room expiry sweep failed; trying again later');
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wakeUp?.();
    await this.loop;
  }

  /** One sweep at `now`; the number of rooms whose expiry it recorded. */
  async sweep(now: Date): Promise<number> {
    const due: { room_id: string }[] = await this.dataSource.query(
      `SELECT room_id FROM ${this.rooms} WHERE state = 'waiting' AND expires_at <= $1 ORDER BY expires_at LIMIT 500`,
      [now.toISOString()],
    );
    let expired = 0;
    for (const { room_id: roomId } of due) {
      const metadata = { correlationId: randomUUID(), causationId: null, occurredAt: now.toISOString() };
      const decided = await this.pipeline.run({ consumer: 'room-expiry', commandId: null, metadata }, (tx) => this.store.decide(tx, roomId, { type: 'Expire', now: now.toISOString() }));
      expired += decided.events.length;
    }
    return expired;
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        const expired = await this.sweep(new Date());
        if (expired > 0) this.logger.info({ expired }, 'room expiries recorded');
        this.failures.succeeded();
      } catch (error) {
        this.failures.failed(error);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.intervalMs);
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }
}
