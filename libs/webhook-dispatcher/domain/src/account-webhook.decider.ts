import type { NewEvent } from '@seed/contracts';

/*
 * The webhook settings of one account (stream `webhook-account-<accountId>`): its default callback
 * URL and its signing secrets. Secrets arrive sealed (the app seals them with
 * WEBHOOK_SECRET_SEALING_KEYS); the decider never sees one in clear. A rotation keeps the previous
 * secret valid until `previousValidUntil`, and requests are signed with both until then.
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

export interface AccountWebhookState {
  dlrCallbackUrl: string | null;
  sealedSecret: string | null;
  previousSealedSecret: string | null;
  previousValidUntil: string | null;
}

export type AccountWebhookCommand =
  | { type: 'SetWebhook'; accountId: string; dlrCallbackUrl: string; newSealedSecret: string; at: string }
  | { type: 'RotateSecret'; accountId: string; newSealedSecret: string; overlapMs: number; at: string }
  /** A delivery needs a secret and the account has none yet. */
  | { type: 'EnsureSecret'; accountId: string; newSealedSecret: string; at: string };

export const initialAccountWebhookState = (): AccountWebhookState => ({
  dlrCallbackUrl: null,
  sealedSecret: null,
  previousSealedSecret: null,
  previousValidUntil: null,
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
    case 'SigningSecretIssued':
      return {
        ...state,
        sealedSecret: event.data.sealedSecret,
        previousSealedSecret: event.data.previousValidUntil === null ? null : state.sealedSecret,
        previousValidUntil: event.data.previousValidUntil,
      };
  }
}

/** The sealed secrets to sign with at `now`: the current one, and the previous one during its overlap. */
export function signingSecretsAt(state: AccountWebhookState, now: number): string[] {
  if (state.sealedSecret === null) return [];
  const previousValid = state.previousSealedSecret !== null && state.previousValidUntil !== null && now < Date.parse(state.previousValidUntil);
  return previousValid ? [state.sealedSecret, state.previousSealedSecret as string] : [state.sealedSecret];
}
