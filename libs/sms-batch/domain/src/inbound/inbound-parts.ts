import { base64ToBytes, concatOctets } from './octets';
import type { InboundPart } from './inbound-pdu';
import { decodeUserData, type InboundEncoding } from './inbound-text';

/** How long a part waits for its siblings before it is delivered without them, marked incomplete. */
export const INBOUND_PART_MAX_WAIT_MS = 10 * 60_000;

export interface InboundMessage {
  text: string;
  /** The first part's encoding. */
  encoding: InboundEncoding;
  /** Parts received, each sequence once. */
  smsCount: number;
  /** A sequence between 1 and the total is missing; its text is simply absent. */
  incomplete: boolean;
}

/**
 * The key that a part's siblings share: source, destination, scheme, reference and total (a
 * reference is only unique per sender and recipient, and a handset reusing one for a message of
 * another length starts a new message). null for a message of one part.
 */
export function siblingKey(part: InboundPart): string | null {
  const concatenation = part.concatenation;
  if (concatenation === null) return null;
  return JSON.stringify([part.source, part.destination, concatenation.scheme, concatenation.reference, concatenation.total]);
}

/** Whether the parts (siblings, or one single part) hold every sequence from 1 to the total. */
export function isComplete(parts: readonly InboundPart[]): boolean {
  const first = parts[0];
  if (first === undefined) return false;
  if (first.concatenation === null) return true;
  const received = new Set(parts.map((part) => part.concatenation?.sequence));
  for (let sequence = 1; sequence <= first.concatenation.total; sequence++) {
    if (!received.has(sequence)) return false;
  }
  return true;
}

/**
 * The message of sibling parts (or of one single part): each sequence once (a carrier's resend of
 * a part is ignored, the first kept), in sequence order. Octets are joined before they are decoded,
 * since a handset may split a GSM-7 escape or a UTF-16 surrogate pair between two parts; they are
 * joined only across consecutive sequences of one encoding, so that the halves on either side of a
 * missing part are never read as one character. Throws on no parts (a bug in the caller).
 */
export function joinParts(parts: readonly InboundPart[]): InboundMessage {
  const ordered = distinctInSequenceOrder(parts);
  const first = ordered[0];
  if (first === undefined) throw new RangeError('joinParts needs at least one part');
  let text = '';
  let run: Uint8Array[] = [];
  ordered.forEach((part, index) => {
    run.push(base64ToBytes(part.userData));
    const next = ordered[index + 1];
    if (next === undefined || !continues(part, next)) {
      text += decodeUserData(concatOctets(run), part.encoding);
      run = [];
    }
  });
  return { text, encoding: first.encoding, smsCount: ordered.length, incomplete: !isComplete(ordered) };
}

function distinctInSequenceOrder(parts: readonly InboundPart[]): InboundPart[] {
  const bySequence = new Map<number, InboundPart>();
  for (const part of parts) {
    const sequence = part.concatenation?.sequence ?? 1;
    if (!bySequence.has(sequence)) bySequence.set(sequence, part);
  }
  return [...bySequence.entries()].sort(([a], [b]) => a - b).map(([, part]) => part);
}

function continues(part: InboundPart, next: InboundPart): boolean {
  const sequence = part.concatenation?.sequence ?? 1;
  return next.encoding === part.encoding && next.concatenation?.sequence === sequence + 1;
}
