import type { NewEvent } from '@seed/contracts';

/*
 * The webhook settings of one account (stream `webhook-account-<accountId>`): its default callback
 * URL and its signing secrets. Secrets arrive sealed (the app seals them with
 * WEBHOOK_SECRET_SEALING_KEYS); the decider never sees one in clear. A rotation keeps the secret
 * it replaces valid until `previousValidUntil`, and requests are signed with every valid one until
 * then; a second rotation within that overlap does not cut the first one's short.
 */

export const accountStreamId = (accountId: string): string => `webhook-account-${accountId}`;

export interface AccountWebhookSetV1 {
  accountId: string;
  dlrCallbackUrl: string;
  setAt: string;
}

export type SecretIssueReason = 'webhook-set' | 'rotation' | 'first-delivery';

export interface SigningSecretIssuedV1 {
  accountId: string;
  sealedSecret: string;
  issuedAt: string;
  reason: SecretIssueReason;
  /** Until when the secret it replaces still signs; null when it replaces none. */
  previousValidUntil: string | null;
}

export type AccountWebhookEvent =
  | NewEvent<AccountWebhookSetV1, 'AccountWebhookSet'>
  | NewEvent<SigningSecretIssuedV1, 'SigningSecretIssued'>;

/** A replaced secret that still signs until `validUntil` (a rotation's overlap). */
export interface PreviousSecret {
  sealedSecret: string;
  validUntil: string;
}

/** At most this many replaced secrets sign at once: rotations in a row do not grow the header without end. */
export const MAX_PREVIOUS_SECRETS = 4;

export interface AccountWebhookState {
  dlrCallbackUrl: string | null;
  sealedSecret: string | null;
  /** Oldest first; those whose overlap ended are dropped at the next rotation. */
  previousSecrets: PreviousSecret[];
}

export type AccountWebhookCommand =
  | { type: 'SetWebhook'; accountId: string; dlrCallbackUrl: string; newSealedSecret: string; at: string }
  | { type: 'RotateSecret'; accountId: string; newSealedSecret: string; overlapMs: number; at: string }
  /** A delivery needs a secret and the account has none yet. */
  | { type: 'EnsureSecret'; accountId: string; newSealedSecret: string; at: string };

export const initialAccountWebhookState = (): AccountWebhookState => ({
  dlrCallbackUrl: null,
  sealedSecret: null,
  previousSecrets: [],
});

export function decideAccountWebhook(command: AccountWebhookCommand, state: AccountWebhookState): AccountWebhookEvent[] {
  const issue = (reason: SecretIssueReason, previousValidUntil: string | null): AccountWebhookEvent => ({
    type: 'SigningSecretIssued',
    schemaVersion: 1,
    data: { accountId: command.accountId, sealedSecret: command.newSealedSecret, issuedAt: command.at, reason, previousValidUntil },
  });
  switch (command.type) {
    case 'SetWebhook': {
      const events: AccountWebhookEvent[] = [];
      if (state.dlrCallbackUrl !== command.dlrCallbackUrl) {
        events.push({ type: 'AccountWebhookSet', schemaVersion: 1, data: { accountId: command.accountId, dlrCallbackUrl: command.dlrCallbackUrl, setAt: command.at } });
      }
      if (state.sealedSecret === null) events.push(issue('webhook-set', null));
      return events;
    }
    case 'RotateSecret': {
      const until = state.sealedSecret === null ? null : new Date(Date.parse(command.at) + command.overlapMs).toISOString();
      return [issue('rotation', until)];
    }
    case 'EnsureSecret':
      return state.sealedSecret === null ? [issue('first-delivery', null)] : [];
  }
}

export function evolveAccountWebhook(state: AccountWebhookState, event: AccountWebhookEvent): AccountWebhookState {
  switch (event.type) {
    case 'AccountWebhookSet':
      return { ...state, dlrCallbackUrl: event.data.dlrCallbackUrl };
    case 'SigningSecretIssued': {
      const issuedAt = Date.parse(event.data.issuedAt);
      const stillValid = state.previousSecrets.filter((p) => Date.parse(p.validUntil) > issuedAt);
      const replaced = event.data.previousValidUntil !== null && state.sealedSecret !== null ? [{ sealedSecret: state.sealedSecret, validUntil: event.data.previousValidUntil }] : [];
      return { ...state, sealedSecret: event.data.sealedSecret, previousSecrets: [...stillValid, ...replaced].slice(-MAX_PREVIOUS_SECRETS) };
    }
  }
}

/** The sealed secrets to sign with at `now`: the current one, then the replaced ones in their overlap, newest first. */
export function signingSecretsAt(state: AccountWebhookState, now: number): string[] {
  if (state.sealedSecret === null) return [];
  const previous = state.previousSecrets.filter((p) => now < Date.parse(p.validUntil)).map((p) => p.sealedSecret);
  return [state.sealedSecret, ...previous.reverse()];
}

/** Until when the secret replaced last still signs, or null when none does. */
export function lastReplacedValidUntil(state: AccountWebhookState): string | null {
  return state.previousSecrets.at(-1)?.validUntil ?? null;
}
