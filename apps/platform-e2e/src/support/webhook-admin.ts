import type { RunningStack } from '@seed/platform-testing';
import { request } from './http';

/** The admin API's webhook endpoints of one account. */
export function webhookAdmin(stack: RunningStack, accountId: string, token: string | null = stack.adminToken) {
  const url = (path: string) => `${stack.adminUrl}/admin/v1/accounts/${encodeURIComponent(accountId)}/webhooks${path}`;
  return {
    setDefault: (dlrCallbackUrl: unknown) => request(url(''), { token, method: 'PUT', body: { dlrCallbackUrl } }),
    rotate: () => request(url('/rotate-secret'), { token }),
    deadLetters: () => request(url('/dead-letters'), { token, method: 'GET' }),
    redrive: (deliveryId: string) => request(url(`/dead-letters/${deliveryId}/redrive`), { token }),
    redriveAll: () => request(url('/dead-letters/redrive'), { token }),
  };
}

/** Sets the account's default URL (must answer 200); returns the signing secret. */
export async function setDefaultUrl(stack: RunningStack, accountId: string, dlrCallbackUrl: string): Promise<string> {
  const res = await webhookAdmin(stack, accountId).setDefault(dlrCallbackUrl);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`setting the webhook failed: ${res.status} ${text}`);
  return (JSON.parse(text) as { signingSecret: string }).signingSecret;
}

export interface DeadLetter {
  deliveryId: string;
  umid: string;
  url: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  body: { payload: { umid: string; status: { state: string } } };
}

export async function deadLettersOf(stack: RunningStack, accountId: string): Promise<DeadLetter[]> {
  const res = await webhookAdmin(stack, accountId).deadLetters();
  if (res.status !== 200) throw new Error(`dead letters: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { deadLetters: DeadLetter[] }).deadLetters;
}
