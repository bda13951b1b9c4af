import type { RunningStack } from '@seed/platform-testing';
import type { BatchResponse, BatchResponseMessage } from '@seed/sms-batch-contracts';

/** RFC 4122 UUID (any version), as `umid`, `batchId` and `errorId` are. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
/** ISO 8601 UTC with fractional seconds and a trailing Z (product-decisions.md, "Timestamps"). */
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+Z$/;

export const QUEUED = 'SMS is accepted and queued for processing';

/** The contract's six rejection descriptions, written out here rather than imported: the test is the contract. */
export const REJECTED = {
  textMissing: 'Text value is missing',
  textTooLong: 'Invalid Text value. Reached max allowed limit',
  sourceTooLong: 'Invalid Source value. Reached max allowed limit',
  expiryReached: 'Expiry time already reached',
  invalidMsisdn: 'Invalid MSISDN format (not E.164 international number)',
  internalError: 'Internal server error',
} as const;

export interface Account {
  accountId: string;
  subAccountId: string;
  apiKey: string;
  apiKeyId: string;
}

export type { BatchResponse };
export type BatchMessage = BatchResponseMessage;

export interface ErrorBody {
  code: number;
  message: string;
  errorId: string;
  timestamp: string;
}

export interface RawRequest {
  /** A string is sent as it is; anything else as JSON. */
  body?: unknown;
  contentType?: string | null;
  /** Bearer token; null sends no Authorization header. */
  token?: string | null;
  headers?: Record<string, string>;
  method?: string;
  /** e.g. AbortSignal.timeout(ms): the client's own timeout. */
  signal?: AbortSignal;
}

/** Any request; defaults: POST, JSON content type, no auth. */
export function request(url: string, options: RawRequest = {}): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  const contentType = options.contentType === undefined ? 'application/json' : options.contentType;
  if (contentType !== null && options.body !== undefined) headers['content-type'] = contentType;
  if (options.token) headers['authorization'] = `Bearer ${options.token}`;
  const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  return fetch(url, { method: options.method ?? 'POST', headers, ...(body !== undefined ? { body } : {}), ...(options.signal ? { signal: options.signal } : {}) });
}

export function batchUrl(stack: RunningStack, subAccountId: string): string {
  return `${stack.messagingUrl}/sms/v1/${encodeURIComponent(subAccountId)}/many`;
}

/** POST /sms/v1/{subAccountId}/many with the account's key. */
export function postBatch(
  stack: RunningStack,
  account: Pick<Account, 'subAccountId' | 'apiKey'>,
  body: unknown,
  options: Omit<RawRequest, 'body'> = {},
): Promise<Response> {
  return request(batchUrl(stack, account.subAccountId), { token: account.apiKey, ...options, body });
}

/** What a batch response says, without the ids each batch gets anew: two answers to the same request compare equal. */
export function withoutIds(res: BatchResponse): Omit<BatchResponse, 'batchId' | 'messages'> & { messages?: Omit<BatchResponseMessage, 'umid'>[] } {
  return { acceptedCount: res.acceptedCount, rejectedCount: res.rejectedCount, ...(res.messages ? { messages: res.messages.map(({ umid: _umid, ...rest }) => rest) } : {}) };
}

/** How often a request answered 503 is sent again (retrying503). */
const RETRIES_ON_503 = 3;

/**
 * Sends a request again while it is answered 503 ("not done": the service could not decide it within
 * the gateway's wait, as while a killed replica's partitions move, or on two cores shared by two
 * stacks), after its Retry-After (at most 2 s here), as the contract invites a client to; each retry
 * is said on stderr. Returns the last response, its body read.
 */
export async function retrying503(send: () => Promise<Response>): Promise<{ res: Response; text: string }> {
  for (let attempt = 1; ; attempt++) {
    const res = await send();
    const text = await res.text();
    if (res.status !== 503 || attempt > RETRIES_ON_503) return { res, text };
    console.error(`answered 503 (attempt ${attempt}): ${text.slice(0, 200)}; sending it again`);
    await new Promise((resolve) => setTimeout(resolve, Math.min(Number(res.headers.get('retry-after') ?? 1), 2) * 1000));
  }
}

/** A batch that must be answered 200 (after retrying503); returns the parsed response. */
export async function sendBatch(
  stack: RunningStack,
  account: Pick<Account, 'subAccountId' | 'apiKey'>,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<BatchResponse> {
  const { res, text } = await retrying503(() => postBatch(stack, account, body, { headers }));
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as BatchResponse;
}

/**
 * Asserts the contract's error body (product-decisions.md): exactly code, message, errorId (uuid)
 * and timestamp (ISO UTC with Z), JSON, with the expected status and code.
 */
export async function expectApiError(res: Response, status: number, code?: number): Promise<ErrorBody> {
  const text = await res.text();
  let body: ErrorBody;
  try {
    body = JSON.parse(text) as ErrorBody;
  } catch {
    throw new Error(`expected a JSON error body with status ${status}, got ${res.status}: ${text.slice(0, 300)}`);
  }
  expect({ status: res.status, body }).toMatchObject({ status, ...(code !== undefined ? { body: { code } } : {}) });
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(body).sort()).toEqual(['code', 'errorId', 'message', 'timestamp']);
  expect(typeof body.code).toBe('number');
  expect(typeof body.message).toBe('string');
  expect(body.message.length).toBeGreaterThan(0);
  expect(body.errorId).toMatch(UUID);
  expect(body.timestamp).toMatch(ISO_UTC);
  expect(Math.abs(Date.parse(body.timestamp) - Date.now())).toBeLessThan(60_000);
  return body;
}

/** An ISO instant `minutes` from now (negative: in the past). */
export function inMinutes(minutes: number): string {
  return new Date(Date.now() + minutes * 60_000).toISOString();
}

/** A UK mobile number in E.164 digits, distinct for each n < 1,000,000 (07911 xxxxxx is a real mobile range). */
export function ukMobile(n: number): string {
  return `447911${String(n).padStart(6, '0')}`;
}
