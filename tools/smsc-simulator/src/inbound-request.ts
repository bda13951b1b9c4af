import type { InboundAddresses } from './inbound-deliver-sm';
import { MAX_PARTS, type ConcatenationKind, type InboundEncoding } from './inbound-segmentation';

/**
 * The body of `POST /inbound`, checked once into a typed request: every problem is collected so
 * that one 400 answer names them all, as `PUT /config` does.
 */

export type SendOrder = 'in-order' | 'reverse' | 'shuffle';

export interface InboundRequest extends InboundAddresses {
  text: string;
  /** null: GSM-7 when the text allows it, else UCS-2. */
  encoding: InboundEncoding | null;
  concatenation: ConcatenationKind;
  /** null: split as a phone does; n: exactly n parts of equal length. */
  parts: number | null;
  /** null: the simulator's next reference. */
  reference: number | null;
  order: SendOrder;
  /** Part number (1-based) sent a second time right after the first, or null. */
  duplicate: number | null;
  loseFirstResponse: boolean;
  resendAfterMs: number;
  /** true: each deliver_sm goes to the next session in turn; false: all parts to one session. */
  spreadParts: boolean;
  /** null: one message, sent at once; n: n messages (`{i}` in the text numbered 1 to n), as the windows allow. */
  count: number | null;
}

export class InboundRequestError extends Error {
  override readonly name = 'InboundRequestError';
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
  }
}

const KEYS = new Set([
  'source', 'destination', 'text', 'sourceTon', 'sourceNpi', 'destTon', 'destNpi', 'encoding', 'concatenation',
  'parts', 'reference', 'order', 'duplicate', 'loseFirstResponse', 'resendAfterMs', 'spreadParts', 'count',
]);
const ENCODINGS: readonly InboundEncoding[] = ['gsm7', 'latin1', 'ucs2'];
const CONCATENATIONS: readonly ConcatenationKind[] = ['udh8', 'udh16', 'sar'];
const ORDERS: readonly SendOrder[] = ['in-order', 'reverse', 'shuffle'];
const DEFAULT_RESEND_AFTER_MS = 1000;
const MAX_RESEND_AFTER_MS = 600_000;
/** A benchmark's worth; each message is kept until acknowledged. */
export const MAX_COUNT = 1_000_000;
/** source_addr and destination_addr are C-octet strings of at most 21 octets with the NUL. */
const MAX_ADDRESS_LENGTH = 20;

export function parseInboundRequest(body: unknown): InboundRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new InboundRequestError(['the body must be a JSON object']);
  const input = body as Record<string, unknown>;
  const problems: string[] = Object.keys(input).filter((key) => !KEYS.has(key)).map((key) => `unknown key ${key}`);

  const address = (key: string): string => {
    const value = input[key];
    if (typeof value === 'string' && value.length > 0 && value.length <= MAX_ADDRESS_LENGTH && /^[\x20-\x7e]+$/.test(value)) return value;
    problems.push(`${key} must be a string of 1 to ${MAX_ADDRESS_LENGTH} printable ASCII characters`);
    return '';
  };
  const integer = (key: string, min: number, max: number, fallback: number): number => {
    const value = input[key];
    if (value === undefined) return fallback;
    if (Number.isInteger(value) && (value as number) >= min && (value as number) <= max) return value as number;
    problems.push(`${key} must be a whole number from ${min} to ${max}`);
    return fallback;
  };
  const optionalInteger = (key: string, min: number, max: number): number | null =>
    input[key] === undefined || input[key] === null ? null : integer(key, min, max, min);
  const oneOf = <T extends string>(key: string, allowed: readonly T[], fallback: T): T => {
    const value = input[key];
    if (value === undefined) return fallback;
    if (allowed.includes(value as T)) return value as T;
    problems.push(`${key} must be one of ${allowed.join(', ')}`);
    return fallback;
  };
  const flag = (key: string): boolean => {
    const value = input[key];
    if (value === undefined || typeof value === 'boolean') return value === true;
    problems.push(`${key} must be true or false`);
    return false;
  };

  const source = address('source');
  const destination = address('destination');
  const text = typeof input['text'] === 'string' ? input['text'] : (problems.push('text must be a string'), '');
  const concatenation = oneOf('concatenation', CONCATENATIONS, 'udh8');
  const request: InboundRequest = {
    source, destination, text,
    sourceTon: integer('sourceTon', 0, 255, 1),
    sourceNpi: integer('sourceNpi', 0, 255, 1),
    destTon: integer('destTon', 0, 255, 1),
    destNpi: integer('destNpi', 0, 255, 1),
    encoding: input['encoding'] === undefined ? null : oneOf('encoding', ENCODINGS, 'ucs2'),
    concatenation,
    parts: optionalInteger('parts', 1, MAX_PARTS),
    reference: optionalInteger('reference', 0, concatenation === 'udh8' ? 0xff : 0xffff),
    order: oneOf('order', ORDERS, 'in-order'),
    duplicate: optionalInteger('duplicate', 1, MAX_PARTS),
    loseFirstResponse: flag('loseFirstResponse'),
    resendAfterMs: integer('resendAfterMs', 0, MAX_RESEND_AFTER_MS, DEFAULT_RESEND_AFTER_MS),
    spreadParts: flag('spreadParts'),
    count: optionalInteger('count', 1, MAX_COUNT),
  };
  if (problems.length > 0) throw new InboundRequestError(problems);
  return request;
}
