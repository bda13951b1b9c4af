import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { eventStoreSchema, runMigrations } from '@seed/platform-event-store';
import type { CommandContext } from '@seed/platform-kafka';
import { keyedHash, openSealedText, parseKeyring } from '@seed/platform-secrets';
import type { PresentedCode, VerificationStartedV1 } from '@seed/verification-contracts';
import { verificationService } from './verification.service';

export const HASH_KEYS = `h1:${Buffer.alloc(32, 3).toString('base64')}`;
export const SEALING_KEYS = `s1:${Buffer.alloc(32, 5).toString('base64')}`;

/** The schema the service migrates at boot. */
export async function migrateVerificationSchema(dataSource: DataSource, schema: string): Promise<void> {
  await runMigrations(dataSource, schema, [...eventStoreSchema, ...verificationService.migrations]);
}

export function commandOf<T, K extends string>(type: K, data: T, commandId: string = randomUUID()) {
  return { commandId, type, issuedAt: new Date().toISOString(), data };
}

export const contextOf = (commandId: string): CommandContext => ({ correlationId: `corr-${commandId}`, causationId: commandId, traceparent: null });

/** A code as the gateway presents it: its length and its keyed hash under every key. */
export function presented(uid: string, code: string, keys = HASH_KEYS): PresentedCode {
  const ring = parseKeyring(keys);
  return { length: code.length, digests: Object.fromEntries(ring.ids.map((id) => [id, keyedHash(ring.byId(id) as Buffer, uid, code)])) };
}

/** The code of a started verification, read as the SMSC would: from its sealed text. */
export function codeOf(started: VerificationStartedV1): string {
  const text = openSealedText(parseKeyring(SEALING_KEYS), started.sealedText);
  const code = new RegExp(`\\d{${started.codeLength}}`).exec(text)?.[0];
  if (!code) throw new Error('no code in the sealed text');
  return code;
}
