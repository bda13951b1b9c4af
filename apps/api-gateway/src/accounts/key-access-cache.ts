import type { KeyAccess } from './key-access';

export interface KeyAccessCacheOptions {
  /** How long an entry is used at most (a backstop: changes clear the cache when they commit). 0: no cache. */
  ttlMs: number;
  /** Entries kept at most; past it the oldest go first. */
  maxEntries: number;
  now?: () => number;
}

interface Entry {
  access: KeyAccess;
  expiresAt: number;
}

/**
 * What the gateway learned about admitted API keys: per key hash and sub-account, the account and
 * its rate limit. Every request used to look its key up in PostgreSQL (three statements of a
 * Verify flow's 34); most of them ask about the same few keys.
 *
 * Only admissions are kept: an unknown key or a foreign sub-account is asked again every time, so
 * a key or sub-account created a moment ago works at once, and random keys cannot fill the cache.
 * It is used only while `enabled`, which the gateway's change listener sets while it is listening
 * for the account changes that must end an entry (a revoked key, a new rate limit): those clear it
 * everywhere when they commit. Between listens (start-up, a lost connection) every request reads
 * the database, as before. A lookup that began before a clear is not kept (`generation`): its
 * answer may predate the change.
 */
export class KeyAccessCache {
  private readonly entries = new Map<string, Entry>();
  private enabled = false;
  private current = 0;
  private readonly now: () => number;

  constructor(private readonly options: KeyAccessCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Changes with every clear; a lookup fills the cache only if it has not changed since it began. */
  get generation(): number {
    return this.current;
  }

  get active(): boolean {
    return this.enabled && this.options.ttlMs > 0;
  }

  get(keyHash: Buffer, subAccountId: string): KeyAccess | undefined {
    if (!this.active) return undefined;
    const id = entryId(keyHash, subAccountId);
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (entry.expiresAt > this.now()) return entry.access;
    this.entries.delete(id);
    return undefined;
  }

  /** Keeps an admission looked up since `generation`; ignored when the cache was cleared meanwhile. */
  fill(keyHash: Buffer, subAccountId: string, access: KeyAccess, generation: number): void {
    if (!this.active || generation !== this.current) return;
    const id = entryId(keyHash, subAccountId);
    this.entries.delete(id); // re-inserted last: the Map's order is the eviction order
    this.entries.set(id, { access, expiresAt: this.now() + this.options.ttlMs });
    while (this.entries.size > this.options.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  /** Forgets everything: an account changed, or changes can no longer be heard. */
  clear(): void {
    this.entries.clear();
    this.current++;
  }

  /** Used from now on (changes are being listened for). */
  enable(): void {
    this.clear();
    this.enabled = true;
  }

  /** Not used until enabled again (changes cannot be heard). */
  disable(): void {
    this.enabled = false;
    this.clear();
  }
}

const entryId = (keyHash: Buffer, subAccountId: string): string => `${keyHash.toString('base64')} ${subAccountId}`;
