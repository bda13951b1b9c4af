import type { CarrierReceipt } from '@seed/sms-batch-contracts';

/** A deliver_sm as far as the receipt parser needs it. */
export interface DeliverSmForReceipt {
  esmClass: number;
  shortMessage: string;
  /** The receipted_message_id TLV (0x001E), if the carrier sent it. */
  receiptedMessageId?: string | null;
  /** The message_state TLV (0x0427), if the carrier sent it. */
  messageState?: number | null;
}

/** esm_class message-type bits 2-5 = 0001: an SMSC delivery receipt (SMPP 3.4, 5.2.12). */
export const ESM_CLASS_DELIVERY_RECEIPT = 0x04;

/** message_state TLV values (SMPP 3.4, 5.2.28) as the receipt text's `stat:` spells them. */
export const MESSAGE_STATE_STAT: Readonly<Record<number, string>> = {
  1: 'ENROUTE',
  2: 'DELIVRD',
  3: 'EXPIRED',
  4: 'DELETED',
  5: 'UNDELIV',
  6: 'ACCEPTD',
  7: 'UNKNOWN',
  8: 'REJECTD',
};

/** Spellings seen in the wild for the SMPP 3.4 Appendix B stat values. */
const STAT_ALIASES: Readonly<Record<string, string>> = {
  DELIVERED: 'DELIVRD',
  UNDELIVERED: 'UNDELIV',
  UNDELIVERABLE: 'UNDELIV',
  REJECTED: 'REJECTD',
  ACCEPTED: 'ACCEPTD',
};

const NO_ERROR = '000';

type Field = 'id' | 'stat' | 'err' | 'submitDate' | 'doneDate' | 'other';

// A field name starts the text or follows a separator, and may have spaces before its colon.
// `sub`, `dlvrd` and `text` are recognised only so that their values end the field before them.
const FIELD_NAME = /(?:^|[\s,;])(id|sub|dlvrd|submit[\s_]*date|done[\s_]*date|stat|err|text)\s*:/gi;

/**
 * The receipt in a deliver_sm, or null when the PDU is not a delivery receipt (esm_class bit 0x04
 * clear: a mobile-originated message) or names no carrier message id anywhere (it could never be
 * matched to a message; the caller acknowledges it and logs it).
 *
 * The text (SMPP 3.4 Appendix B, `id:… sub:… dlvrd:… submit date:… done date:… stat:… err:…
 * text:…`) is read leniently: any case, any order, extra spaces, missing fields; the first
 * occurrence of a field wins, so words inside a trailing `text:` cannot override the real fields.
 * The receipted_message_id TLV wins over `id:` and a known message_state TLV over `stat:`.
 * A missing stat reads UNKNOWN (not final), a missing err '000'; dates are kept as written.
 */
export function parseDeliveryReceipt(pdu: DeliverSmForReceipt, receivedAt: string): CarrierReceipt | null {
  if ((pdu.esmClass & ESM_CLASS_DELIVERY_RECEIPT) === 0) return null;
  const fields = readFields(pdu.shortMessage);
  const carrierMessageId = cleanTlv(pdu.receiptedMessageId) ?? firstToken(fields.get('id'));
  if (carrierMessageId === null) return null;
  const stateStat = pdu.messageState === null || pdu.messageState === undefined ? undefined : MESSAGE_STATE_STAT[pdu.messageState];
  return {
    carrierMessageId,
    stat: stateStat ?? canonicalStat(firstToken(fields.get('stat'))),
    err: firstToken(fields.get('err')) ?? NO_ERROR,
    submitDate: nonEmpty(fields.get('submitDate')),
    doneDate: nonEmpty(fields.get('doneDate')),
    receivedAt,
  };
}

function readFields(text: string): Map<Field, string> {
  const fields = new Map<Field, string>();
  const names = [...text.matchAll(FIELD_NAME)];
  names.forEach((match, index) => {
    const field = fieldOf(match[1] ?? '');
    const valueStart = (match.index ?? 0) + match[0].length;
    const valueEnd = names[index + 1]?.index ?? text.length;
    if (!fields.has(field)) fields.set(field, text.slice(valueStart, valueEnd).trim());
  });
  return fields;
}

function fieldOf(name: string): Field {
  const key = name.toLowerCase().replace(/[\s_]/g, '');
  switch (key) {
    case 'id':
    case 'stat':
    case 'err':
      return key;
    case 'submitdate':
      return 'submitDate';
    case 'donedate':
      return 'doneDate';
    default:
      return 'other';
  }
}

function canonicalStat(stat: string | null): string {
  if (stat === null) return 'UNKNOWN';
  const upper = stat.toUpperCase();
  return STAT_ALIASES[upper] ?? upper;
}

/** A TLV value as a C-octet string may carry it: NUL-terminated, possibly blank. */
function cleanTlv(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return nonEmpty(value.replace(/\0/g, ''));
}

function firstToken(value: string | undefined): string | null {
  return nonEmpty(value?.split(/\s+/, 1)[0]);
}

function nonEmpty(value: string | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}
