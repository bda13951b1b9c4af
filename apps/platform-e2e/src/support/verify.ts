import type { RunningStack } from '@seed/platform-testing';
import type { VerificationView } from '@seed/verification-contracts';
import { eventually } from '@seed/platform-testing';
import { request, retrying503, type Account } from './http';
import { smsc } from './smsc';

export type { VerificationView };

type Key = Pick<Account, 'subAccountId' | 'apiKey'>;

export const verifyUrl = (stack: RunningStack, subAccountId: string, uid?: string, code?: string): string =>
  `${stack.messagingUrl}/verify/v2/${encodeURIComponent(subAccountId)}` +
  (uid !== undefined ? `/${encodeURIComponent(uid)}` : '') +
  (code !== undefined ? `?code=${encodeURIComponent(code)}` : '');

/** POST /verify/v2/{subAccountId}. */
export const postVerification = (stack: RunningStack, account: Key, body: unknown, signal?: AbortSignal): Promise<Response> =>
  request(verifyUrl(stack, account.subAccountId), { token: account.apiKey, body, ...(signal ? { signal } : {}) });

/** GET /verify/v2/{subAccountId}/{uid}[?code=]. */
export const getVerification = (stack: RunningStack, account: Key, uid: string, code?: string): Promise<Response> =>
  request(verifyUrl(stack, account.subAccountId, uid, code), { token: account.apiKey, method: 'GET' });

/** A request that must be answered 200, a 503 ("not done") sent again as a client would (retrying503). */
async function ok(send: () => Promise<Response>): Promise<VerificationView> {
  const { res, text } = await retrying503(send);
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as VerificationView;
}

export const generate = async (stack: RunningStack, account: Key, body: unknown): Promise<VerificationView> => ok(() => postVerification(stack, account, body));

export const validate = async (stack: RunningStack, account: Key, uid: string, code?: string): Promise<VerificationView> =>
  ok(() => getVerification(stack, account, uid, code));

/** The codes the carrier received for `msisdn`, oldest first, read from the texts (`digits` long). */
export async function receivedCodes(stack: RunningStack, msisdn: string, count: number, digits = 6): Promise<string[]> {
  const pattern = new RegExp(`(?<!\\d)\\d{${digits}}(?!\\d)`);
  const messages = await eventually(async () => {
    const received = await smsc(stack.smscUrl).messages(msisdn);
    return received.length >= count && received.every((m) => m.complete) ? received : undefined;
  }, 30_000);
  return messages.map((m) => {
    const code = pattern.exec(m.text)?.[0];
    if (!code) throw new Error(`no ${digits}-digit code in "${m.text}"`);
    return code;
  });
}

/** A code of the same length that is not `code`. */
export const wrongCode = (code: string, n = 1): string =>
  code
    .split('')
    .map((d) => String((Number(d) + n) % 10))
    .join('');
