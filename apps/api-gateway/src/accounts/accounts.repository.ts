import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { quoteSchema } from '@seed/platform-event-store';
import { ServiceSchema } from '@seed/platform-nest';
import { accessChannel } from './access-changes';
import { generateApiKey, hashApiKey, type NewApiKey } from './api-key';
import type { KeyAccess } from './key-access';
import { KeyAccessCache } from './key-access-cache';

const UNIQUE_VIOLATION = '23505';

export class DuplicateError extends Error {}
export class UnknownAccountError extends Error {}

@Injectable()
export class AccountsRepository {
  private readonly s: string;
  /** Where account changes that end cached admissions are announced (access-changes.ts). */
  private readonly channel: string;

  constructor(
    private readonly dataSource: DataSource,
    schema: ServiceSchema,
    private readonly cache: KeyAccessCache,
  ) {
    this.s = quoteSchema(schema.name);
    this.channel = accessChannel(schema.name);
  }

  async createAccount(accountId: string): Promise<{ subAccountId: string; key: NewApiKey }> {
    const subAccountId = `${accountId}_hq`;
    const key = generateApiKey();
    await this.unique(() =>
      this.dataSource.transaction(async (tx) => {
        await tx.query(`INSERT INTO ${this.s}.accounts (account_id) VALUES ($1)`, [accountId]);
        await tx.query(`INSERT INTO ${this.s}.sub_accounts (sub_account_id, account_id) VALUES ($1, $2)`, [subAccountId, accountId]);
        await tx.query(`INSERT INTO ${this.s}.api_keys (api_key_id, account_id, key_hash) VALUES ($1, $2, $3)`, [
          key.apiKeyId,
          accountId,
          key.hash,
        ]);
      }),
    );
    return { subAccountId, key };
  }

  async addSubAccount(accountId: string, subAccountId: string): Promise<void> {
    await this.requireAccount(accountId);
    await this.unique(() =>
      this.dataSource.query(`INSERT INTO ${this.s}.sub_accounts (sub_account_id, account_id) VALUES ($1, $2)`, [subAccountId, accountId]),
    );
  }

  async subAccountExists(subAccountId: string): Promise<boolean> {
    const rows = await this.dataSource.query(`SELECT 1 FROM ${this.s}.sub_accounts WHERE sub_account_id = $1`, [subAccountId]);
    return rows.length > 0;
  }

  async subAccountsOf(accountId: string): Promise<string[]> {
    const rows: { sub_account_id: string }[] = await this.dataSource.query(
      `SELECT sub_account_id FROM ${this.s}.sub_accounts WHERE account_id = $1 ORDER BY created_at, sub_account_id`,
      [accountId],
    );
    return rows.map((r) => r.sub_account_id);
  }

  async createApiKey(accountId: string): Promise<NewApiKey> {
    await this.requireAccount(accountId);
    const key = generateApiKey();
    await this.dataSource.query(`INSERT INTO ${this.s}.api_keys (api_key_id, account_id, key_hash) VALUES ($1, $2, $3)`, [
      key.apiKeyId,
      accountId,
      key.hash,
    ]);
    return key;
  }

  /**
   * True when an active key was revoked; it stops working with the next request on every gateway
   * replica (the notification, sent when the update commits, clears their key caches).
   */
  async revokeApiKey(accountId: string, apiKeyId: string): Promise<boolean> {
    return this.updateAndAnnounce(
      `UPDATE ${this.s}.api_keys SET revoked_at = now()
        WHERE account_id = $1 AND api_key_id = $2 AND revoked_at IS NULL RETURNING api_key_id`,
      [accountId, apiKeyId],
    );
  }

  /**
   * The key's account, whether it owns the sub-account, and its rate limit: one indexed lookup, or
   * none when this replica admitted the same key for the same sub-account lately (KeyAccessCache;
   * revocations and rate-limit changes clear it when they commit).
   */
  async accessOf(apiKey: string, subAccountId: string | null): Promise<KeyAccess | null> {
    const keyHash = hashApiKey(apiKey);
    const sub = subAccountId ?? '';
    const cached = this.cache.get(keyHash, sub);
    if (cached) return cached;
    const generation = this.cache.generation;
    const rows: { account_id: string; owns: boolean; requests_per_second: number | null }[] = await this.dataSource.query(
      `SELECT k.account_id, s.sub_account_id IS NOT NULL AS owns, a.requests_per_second
         FROM ${this.s}.api_keys k
         JOIN ${this.s}.accounts a ON a.account_id = k.account_id
         LEFT JOIN ${this.s}.sub_accounts s ON s.account_id = k.account_id AND s.sub_account_id = $2
        WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [keyHash, sub],
    );
    const row = rows[0];
    if (!row) return null;
    const access: KeyAccess = { accountId: row.account_id, ownsSubAccount: row.owns, requestsPerSecond: row.requests_per_second };
    // Only admissions: a refusal is asked again, so a sub-account created a moment ago works at once.
    if (sub === '' || access.ownsSubAccount) this.cache.fill(keyHash, sub, access, generation);
    return access;
  }

  /** The account's own request rate limit (null: the gateway's default); undefined for an unknown account. */
  async rateLimitOf(accountId: string): Promise<number | null | undefined> {
    const rows: { requests_per_second: number | null }[] = await this.dataSource.query(
      `SELECT requests_per_second FROM ${this.s}.accounts WHERE account_id = $1`,
      [accountId],
    );
    return rows[0] === undefined ? undefined : rows[0].requests_per_second;
  }

  /** Sets (or with null clears) the account's own request rate limit; false for an unknown account. */
  async setRateLimit(accountId: string, requestsPerSecond: number | null): Promise<boolean> {
    // Cached admissions carry the limit: the notification clears them when the change commits.
    return this.updateAndAnnounce(`UPDATE ${this.s}.accounts SET requests_per_second = $2 WHERE account_id = $1 RETURNING account_id`, [
      accountId,
      requestsPerSecond,
    ]);
  }

  /**
   * Runs an UPDATE ... RETURNING that ends cached admissions, notifying every replica's listener
   * in the same statement for each row it changed (so the notification goes out when it commits);
   * true when it changed a row.
   */
  private async updateAndAnnounce(update: string, values: unknown[]): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(`WITH changed AS (${update}) SELECT pg_notify($${values.length + 1}, '') FROM changed`, [
      ...values,
      this.channel,
    ]);
    // This replica's own cache at once, before its answer: the notification reaches it a moment later.
    this.cache.clear();
    return rows.length > 0;
  }

  private async requireAccount(accountId: string): Promise<void> {
    const rows = await this.dataSource.query(`SELECT 1 FROM ${this.s}.accounts WHERE account_id = $1`, [accountId]);
    if (rows.length === 0) throw new UnknownAccountError(`account ${accountId} does not exist`);
  }

  private async unique<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      const e = error as { code?: string; driverError?: { code?: string } };
      if (e.code === UNIQUE_VIOLATION || e.driverError?.code === UNIQUE_VIOLATION) throw new DuplicateError('already exists');
      throw error;
    }
  }
}
