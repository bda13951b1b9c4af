import type { CommandMessage } from '@seed/contracts';

/** Commands of the webhook dispatcher (the admin API's webhook endpoints); keyed by account id. */
export const WEBHOOK_DISPATCHER_COMMAND_TOPIC = 'webhook-dispatcher.commands.v1';

export interface SetAccountWebhookData {
  accountId: string;
  /** An absolute http(s) URL, checked by the gateway (and again by the dispatcher). */
  dlrCallbackUrl: string;
}

export interface AccountWebhookResult {
  accountId: string;
  dlrCallbackUrl: string | null;
  /**
   * The account's current signing secret, sealed with the shared MESSAGE_SEALING_KEYS
   * (`@seed/platform-secrets`) so that it never crosses Kafka in clear; the gateway opens it and
   * shows it once, in its answer.
   */
  sealedSigningSecret: string;
}

export interface RotateSecretData {
  accountId: string;
}

export interface RotateSecretResult extends AccountWebhookResult {
  /** Until when requests are signed with the previous secret too (ISO 8601), or null when there was none. */
  previousSecretValidUntil: string | null;
}

export interface AccountData {
  accountId: string;
}

export interface RedriveDeadLetterData {
  accountId: string;
  deliveryId: string;
}

/** A delivery that gave up (retries ran out, or the target was refused). */
export interface DeadLetterView {
  deliveryId: string;
  umid: string;
  url: string;
  state: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
  deadLetteredAt: string;
  /** The webhook body that would have been sent. */
  body: unknown;
}

export interface DeadLettersResult {
  deadLetters: DeadLetterView[];
}

export interface RedriveResult {
  redriven: number;
}

export type WebhookDispatcherCommand =
  | CommandMessage<SetAccountWebhookData, 'SetAccountWebhook'>
  | CommandMessage<RotateSecretData, 'RotateWebhookSecret'>
  | CommandMessage<AccountData, 'ListDeadLetters'>
  | CommandMessage<RedriveDeadLetterData, 'RedriveDeadLetter'>
  | CommandMessage<AccountData, 'RedriveAllDeadLetters'>;
