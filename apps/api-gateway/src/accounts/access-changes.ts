import { createHash } from 'node:crypto';
import { Client } from 'pg';
import type { Logger } from 'pino';
import type { KeyAccessCache } from './key-access-cache';

/** How often the listening connection is checked, and how long a check may take before it counts as lost. */
const CHECK_EVERY_MS = 5000;
const RECONNECT_AFTER_MS = 1000;

/**
 * The PostgreSQL notification channel of a gateway schema's account changes. Fixed length: a
 * channel name is cut at 63 bytes by LISTEN but refused by pg_notify, and schema names with a
 * prefix can be long.
 */
export function accessChannel(schema: string): string {
  return `access_changed_${createHash('sha256').update(schema).digest('hex').slice(0, 16)}`;
}

/**
 * Keeps the key cache of this gateway in step with account changes made through any replica: a
 * connection of its own LISTENs on the schema's channel, and every change that must end cached
 * admissions (a revoked key, a new rate limit) notifies it in its own statement, so the
 * notification goes out when the change commits and not before. Each notification clears the
 * cache.
 *
 * The cache is used only while this connection listens. Until the first LISTEN, after the
 * connection fails or ends, and when a check on it (every 5 s) gets no answer within 5 s, the cache
 * is disabled and cleared — a change made meanwhile could not be heard — and every request reads
 * the database until listening again (retried every second).
 */
export class AccessChangeListener {
  private client: Client | undefined;
  private stopped = false;
  private checker: NodeJS.Timeout | undefined;
  private reconnect: NodeJS.Timeout | undefined;
  /** Connections already given up. */
  private readonly given = new WeakSet<Client>();
  /** Not listening since the last warning (start-up counts as listening, so its first failure is logged). */
  private deaf = false;

  constructor(
    private readonly databaseUrl: string,
    private readonly channel: string,
    private readonly cache: KeyAccessCache,
    private readonly logger: Logger,
  ) {}

  /** Starts listening in the background; the cache stays off until the LISTEN is in place. */
  start(): void {
    void this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnect);
    clearInterval(this.checker);
    this.cache.disable();
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    // Named after its channel, so that operators (and tests) can tell these connections apart; a
    // statement unanswered within CHECK_EVERY_MS fails (node-postgres's query_timeout).
    const client = new Client({ connectionString: this.databaseUrl, keepAlive: true, application_name: `gateway ${this.channel}`, query_timeout: CHECK_EVERY_MS });
    client.on('notification', () => this.cache.clear());
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch (error) {
      this.lost(client, error);
      return;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.deaf = false;
    this.cache.enable();
    this.checker = setInterval(() => void this.check(client), CHECK_EVERY_MS);
    this.checker.unref();
    this.logger.info({ channel: this.channel }, 'listening for account changes; API key cache on');
  }

  /** A connection cut without a word (no FIN, no error) would otherwise leave the cache on, deaf. */
  private async check(client: Client): Promise<void> {
    await client.query('SELECT 1').catch((error: unknown) => this.lost(client, error));
  }

  private lost(client: Client, error?: unknown): void {
    // Each connection is given up once (an error is followed by its end).
    if (this.given.has(client)) return;
    this.given.add(client);
    if (this.client === client) this.client = undefined;
    clearInterval(this.checker);
    this.cache.disable();
    client.end().catch(() => undefined);
    if (this.stopped) return;
    // Once per outage, not once per attempt: a database that is down is retried every second.
    if (!this.deaf) this.logger.warn({ err: error, channel: this.channel }, 'not listening for account changes; API key cache off until listening again');
    this.deaf = true;
    this.reconnect = setTimeout(() => void this.connect(), RECONNECT_AFTER_MS);
    this.reconnect.unref();
  }
}
