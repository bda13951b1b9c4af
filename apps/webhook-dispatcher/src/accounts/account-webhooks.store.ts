import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EventStore, quoteSchema, type AppendMetadata, type AppendToStream, type SqlExecutor } from '@seed/platform-event-store';
import { ServiceSchema } from '@seed/platform-nest';
import { openSealedText, sealText, type Keyring } from '@seed/platform-secrets';
import {
  accountStreamId,
  evolveAccountWebhook,
  initialAccountWebhookState,
  type AccountWebhookEvent,
  type AccountWebhookState,
  type PreviousSecret,
} from '@seed/webhook-dispatcher-domain';

export interface LoadedAccount {
  state: AccountWebhookState;
  version: number;
}

/** A new signing secret: 256 random bits, shown to the customer once. */
export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64url')}`;

/**
 * The accounts' webhook settings: events on `webhook-account-<accountId>` and their fold in
 * `account_webhooks`, written together. Secrets are sealed before they reach either.
 */
@Injectable()
export class AccountWebhooksStore {
  private readonly s: string;

  constructor(
    private readonly store: EventStore,
    schema: ServiceSchema,
  ) {
    this.s = quoteSchema(schema.name);
  }

  /**
   * The accounts' settings, locked for this transaction (absent accounts: initial state, version 0).
   * `lock: 'creating'` first gives an account without a row an empty one (version 0, nothing set),
   * so that there is a row to lock: `FOR UPDATE` alone locks nothing for an account that has none,
   * and two transactions giving the same new account its first secret would both append at version
   * 0 (one of them then failing on the events' unique position). With the row, the second waits
   * for the first and reads what it wrote. Only for a caller that writes the fold in the same
   * transaction (the intake's EnsureSecret), so no empty row outlives it.
   */
  async load(db: SqlExecutor, accountIds: readonly string[], lock: boolean | 'creating' = true): Promise<Map<string, LoadedAccount>> {
    if (lock === 'creating' && accountIds.length > 0) {
      await db.query(
        `INSERT INTO ${this.s}.account_webhooks (account_id, version) SELECT id, 0 FROM unnest($1::text[]) AS id ORDER BY id ON CONFLICT (account_id) DO NOTHING`,
        [[...accountIds].sort()],
      );
    }
    const rows: Row[] = await db.query(
      `SELECT account_id, dlr_callback_url, sealed_secret, previous_secrets, version
         FROM ${this.s}.account_webhooks WHERE account_id = ANY($1::text[]) ORDER BY account_id ${lock ? 'FOR UPDATE' : ''}`,
      [accountIds],
    );
    const found = new Map(rows.map((r) => [r.account_id, toLoaded(r)]));
    return new Map(accountIds.map((id) => [id, found.get(id) ?? { state: initialAccountWebhookState(), version: 0 }]));
  }

  /** Appends the account's events (expected version guarded) and writes their fold. */
  async apply(db: SqlExecutor, accountId: string, loaded: LoadedAccount, events: AccountWebhookEvent[], meta: AppendMetadata): Promise<AccountWebhookState> {
    if (events.length === 0) return loaded.state;
    await this.store.append(db, [appendOf(accountId, loaded, events)], meta);
    return this.writeFold(db, accountId, loaded, events);
  }

  /** Writes the fold of the account's events and answers their append, for a decision the CommandPipeline appends in the same transaction. */
  async decided(db: SqlExecutor, accountId: string, loaded: LoadedAccount, events: AccountWebhookEvent[]): Promise<{ append: AppendToStream; state: AccountWebhookState }> {
    const state = events.length === 0 ? loaded.state : await this.writeFold(db, accountId, loaded, events);
    return { append: appendOf(accountId, loaded, events), state };
  }

  private async writeFold(db: SqlExecutor, accountId: string, loaded: LoadedAccount, events: AccountWebhookEvent[]): Promise<AccountWebhookState> {
    const state = events.reduce(evolveAccountWebhook, loaded.state);
    await db.query(
      `INSERT INTO ${this.s}.account_webhooks (account_id, dlr_callback_url, sealed_secret, previous_secrets, version)
       VALUES ($1, $2, $3, $4::jsonb, $5)
       ON CONFLICT (account_id) DO UPDATE SET dlr_callback_url = EXCLUDED.dlr_callback_url, sealed_secret = EXCLUDED.sealed_secret,
         previous_secrets = EXCLUDED.previous_secrets, version = EXCLUDED.version`,
      [accountId, state.dlrCallbackUrl, state.sealedSecret, JSON.stringify(state.previousSecrets), loaded.version + events.length],
    );
    return state;
  }
}

function appendOf(accountId: string, loaded: LoadedAccount, events: AccountWebhookEvent[]): AppendToStream {
  return { streamId: accountStreamId(accountId), expectedVersion: loaded.version, events };
}

/** Seals new secrets and opens stored ones (cached: the same sealed text always opens to the same secret). */
export class SecretSealer {
  private readonly opened = new Map<string, string>();

  constructor(private readonly keyring: Keyring) {}

  seal(secret: string): string {
    return sealText(this.keyring, secret);
  }

  open(sealed: string): string {
    let secret = this.opened.get(sealed);
    if (secret === undefined) {
      secret = openSealedText(this.keyring, sealed);
      if (this.opened.size > 10_000) this.opened.clear();
      this.opened.set(sealed, secret);
    }
    return secret;
  }
}

interface Row {
  account_id: string;
  dlr_callback_url: string | null;
  sealed_secret: string | null;
  previous_secrets: PreviousSecret[];
  version: number;
}

function toLoaded(r: Row): LoadedAccount {
  return {
    version: r.version,
    state: {
      dlrCallbackUrl: r.dlr_callback_url,
      sealedSecret: r.sealed_secret,
      previousSecrets: r.previous_secrets,
    },
  };
}
