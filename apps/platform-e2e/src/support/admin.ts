import type { RunningStack } from '@seed/platform-testing';
import { request } from './http';

/** Thin client of the admin API, authenticated with the stack's operator token unless told otherwise. */
export function admin(stack: RunningStack, token: string | null = stack.adminToken) {
  const url = (path: string) => `${stack.adminUrl}/admin/v1/accounts${path}`;
  return {
    createAccount: (accountId: unknown) => request(url(''), { token, body: { accountId } }),
    getAccount: (accountId: string) => request(url(`/${accountId}`), { token, method: 'GET' }),
    createSubAccount: (accountId: string, subAccountId: unknown) =>
      request(url(`/${accountId}/sub-accounts`), { token, body: { subAccountId } }),
    createApiKey: (accountId: string) => request(url(`/${accountId}/api-keys`), { token }),
    revokeApiKey: (accountId: string, apiKeyId: string) => request(url(`/${accountId}/api-keys/${apiKeyId}`), { token, method: 'DELETE' }),
    getRateLimit: (accountId: string) => request(url(`/${accountId}/rate-limit`), { token, method: 'GET' }),
    setRateLimit: (accountId: string, body: unknown) => request(url(`/${accountId}/rate-limit`), { token, method: 'PUT', body }),
  };
}

/** Adds a sub-account to an account; throws unless 201. */
export async function addSubAccount(stack: RunningStack, accountId: string, subAccountId: string): Promise<void> {
  const res = await admin(stack).createSubAccount(accountId, subAccountId);
  if (res.status !== 201) throw new Error(`sub-account creation failed: ${res.status} ${await res.text()}`);
}
