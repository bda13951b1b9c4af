import type { CommandMessage } from '@seed/contracts';

/*
 * Inbound SMS (mobile-originated): a carrier's deliver_sm or data_sm that is not a receipt. Each is
 * recorded before it is acknowledged; the parts of a concatenated message are joined into one
 * InboundMessageReceived, which is what customers are told of (webhook, public topic, the list API).
 */

/** One part as it came off the wire: the user data without its header, base64. */
export interface InboundPartV1 {
  source: string;
  destination: string;
  encoding: 'GSM7' | 'ASCII' | 'UCS2' | 'LATIN1' | 'BINARY';
  userData: string;
  concatenation: { scheme: 'udh8' | 'udh16' | 'sar'; reference: number; total: number; sequence: number } | null;
}

/** A part of a concatenated message, kept until its siblings arrive (or 10 minutes pass). */
export interface InboundPartReceivedV1 {
  groupId: string;
  carrierId: string;
  part: InboundPartV1;
  receivedAt: string;
}

export type InboundKeywordV1 = 'opt-out' | 'opt-in' | 'help';

/** A whole inbound message: one part, every part joined, or the parts that came within 10 minutes (`incomplete`). */
export interface InboundMessageReceivedV1 {
  /** Its id, as for outbound messages. */
  umid: string;
  /** The number's owner; null when the destination is no number of the platform (recorded, not posted). */
  accountId: string | null;
  subAccountId: string | null;
  /** The sender, as the carrier gave it (E.164 digits for a handset). */
  source: string;
  /** The number it was sent to. */
  destination: string;
  body: string;
  encoding: InboundPartV1['encoding'];
  smsCount: number;
  incomplete: boolean;
  /** STOP-family, START-family or HELP/INFO: the whole text, case and spaces aside. */
  keyword: InboundKeywordV1 | null;
  /** Where it is posted: the number's inbound webhook URL, or null for the account's default callback URL. */
  inboundWebhookUrl: string | null;
  carrierId: string;
  receivedAt: string;
  /**
   * Present (true) when the carrier that delivered it may not deliver to the number (the number's
   * `carriers`, or its routes'): recorded without an owner and not acted on. Absent otherwise.
   */
  unboundCarrier?: true;
}

/** The stream of one single-part message's text from one sender to one number (a carrier's resend lands in it). */
export const inboundMessageStreamId = (key: string): string => `inbound-${key}`;
/** The stream of the parts of concatenated messages with one reference (source, number, scheme, reference, total). */
export const inboundGroupStreamId = (key: string): string => `inbound-group-${key}`;

/** An inbound message as the list API shows it: the event's own fields, of a sub-account's number. */
export type InboundMessageView = Pick<InboundMessageReceivedV1, 'umid' | 'source' | 'destination' | 'body' | 'encoding' | 'smsCount' | 'incomplete' | 'receivedAt'> & {
  subAccountId: string;
};

/** A sub-account's inbound messages, newest first: `before` is the cursor of the previous page, `since` an ISO instant. */
export type ListInboundQuery = CommandMessage<{ accountId: string; subAccountId: string; since: string | null; before: string | null; limit: number }, 'ListInbound'>;

export interface InboundPage {
  messages: InboundMessageView[];
  /** Pass as `before` for the next (older) page; null on the last. */
  next: string | null;
}
