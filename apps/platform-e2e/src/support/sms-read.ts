import { eventually, type RunningStack } from '@seed/platform-testing';
import type { BatchView, MessageStateName, MessageView } from '@seed/sms-batch-contracts';
import { request, type Account } from './http';

export type { BatchView, MessageView };

type Reader = Pick<Account, 'subAccountId' | 'apiKey'>;

/** `GET /sms/v1/{subAccountId}/messages/{umid}` with the account's key (or another sub-account path). */
export function getMessageRaw(stack: RunningStack, account: Reader, umid: string, subAccountId = account.subAccountId): Promise<Response> {
  return request(`${stack.messagingUrl}/sms/v1/${encodeURIComponent(subAccountId)}/messages/${encodeURIComponent(umid)}`, {
    token: account.apiKey,
    method: 'GET',
  });
}

/** `GET /sms/v1/{subAccountId}/batches/{batchId}`. */
export function getBatchRaw(stack: RunningStack, account: Reader, batchId: string, subAccountId = account.subAccountId): Promise<Response> {
  return request(`${stack.messagingUrl}/sms/v1/${encodeURIComponent(subAccountId)}/batches/${encodeURIComponent(batchId)}`, {
    token: account.apiKey,
    method: 'GET',
  });
}

async function ok<T>(res: Response): Promise<T> {
  const text = await res.text();
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

export const getMessage = async (stack: RunningStack, account: Reader, umid: string): Promise<MessageView> =>
  ok<MessageView>(await getMessageRaw(stack, account, umid));

export const getBatch = async (stack: RunningStack, account: Reader, batchId: string): Promise<BatchView> =>
  ok<BatchView>(await getBatchRaw(stack, account, batchId));

/** Polls the message read API until the message is in `state`; returns that view. */
export function messageInState(stack: RunningStack, account: Reader, umid: string, state: MessageStateName, timeoutMs = 20_000): Promise<MessageView> {
  return eventually(async () => {
    const view = await getMessage(stack, account, umid);
    return view.status.state === state ? view : undefined;
  }, timeoutMs, 100);
}

/** The states a message went through: receipts that changed nothing and routing decisions left out. */
export function stateChanges(view: MessageView): string[] {
  return view.history.filter((h) => h.event !== 'ReceiptRecorded' && h.event !== 'MessageRouted').map((h) => h.state);
}
