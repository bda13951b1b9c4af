import { ApiErrorCode, type NewEvent } from '@seed/contracts';
import {
  type BatchSubmittedV1,
  type MessageRejectedV1,
  RejectionDescription,
  type SmsBatchItem,
  type SmsCommonProperties,
  type SmsEncodingName,
  type SubmitBatchData,
} from '@seed/sms-batch-contracts';
import { queuedEvent, rejectedEvent, type BatchContext, type MergedMessage, type MessageEvent } from './batch-message-events';
import { normalizeMsisdn } from './msisdn';
import { isSourceWithinLimit } from './sms-source';
import { analyzeText, isWithinTextLimit, type TextAnalysis } from './sms-text';

export type { MessageEvent };

export const MAX_MESSAGES_PER_BATCH = 10_000;

/** The command as the service hands it to the decider: ids and time come in, never made here. */
export interface SubmitBatchDecision {
  data: SubmitBatchData;
  batchId: string;
  /** One per message, same order. */
  umids: string[];
  /** ISO-8601 instant of the decision. */
  now: string;
}

export interface BatchState {
  submitted: boolean;
  batchId: string | null;
}

export type BatchEvent = NewEvent<BatchSubmittedV1, 'BatchSubmitted'>;

export interface DecidedMessage {
  umid: string;
  /** Events for stream `messageStreamId(umid)`. */
  events: MessageEvent[];
}

export interface DecidedBatch {
  /** Events for stream `batchStreamId(batchId)`. */
  batch: BatchEvent[];
  /** One per message, in request order; empty when nothing is to be written. */
  messages: DecidedMessage[];
}

/**
 * A whole request the decider refuses; `code` is the contract's error code, answered with 400.
 * The gateway checks these first; this is the second line, so a bad command never reaches a stream.
 */
export class BatchRejectedError extends Error {
  constructor(
    readonly code: ApiErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'BatchRejectedError';
  }
}

export const initialBatchState = (): BatchState => ({ submitted: false, batchId: null });

export function evolveBatch(state: BatchState, event: { type: string; data: unknown }): BatchState {
  switch (event.type) {
    case 'BatchSubmitted':
      return { submitted: true, batchId: batchIdOf(event.data) };
    default:
      return state;
  }
}

/**
 * Decides every message of a batch. A batch already submitted decides nothing, so a retried
 * command appends no second set of events.
 */
export function decideSubmitBatch(command: SubmitBatchDecision, state: BatchState): DecidedBatch {
  if (state.submitted) return { batch: [], messages: [] };
  const { data, batchId, umids, now } = command;
  assertBatchSize(data.messages.length);
  if (umids.length !== data.messages.length) {
    throw new Error(`decideSubmitBatch needs one umid per message: ${umids.length} for ${data.messages.length}`);
  }
  const nowMs = Date.parse(now);
  if (Number.isNaN(nowMs)) throw new Error(`decideSubmitBatch needs an ISO instant as now, got "${now}"`);

  const decideMessage = messageDecider(command, nowMs);
  let acceptedCount = 0;
  const messages = data.messages.map((item, index): DecidedMessage => {
    const umid = umids[index] as string; // lengths checked above
    const event = decideMessage(item, index, umid);
    if (event.type === 'MessageQueued') acceptedCount++;
    return { umid, events: [event] };
  });

  if (data.refuseRejected) refuseFirstRejected(messages);

  const submitted: BatchSubmittedV1 = {
    batchId,
    clientBatchId: data.clientBatchId ?? null,
    accountId: data.accountId,
    subAccountId: data.subAccountId,
    acceptedCount,
    rejectedCount: messages.length - acceptedCount,
    umids: [...umids],
    submittedAt: now,
  };
  return { batch: [{ type: 'BatchSubmitted', schemaVersion: 1, data: submitted }], messages };
}

/** The contract's error code for each rejection, when a rejection refuses the request instead. */
const REFUSAL_CODES: Record<RejectionDescription, ApiErrorCode> = {
  [RejectionDescription.TextMissing]: ApiErrorCode.InvalidText,
  [RejectionDescription.TextTooLong]: ApiErrorCode.InvalidText,
  [RejectionDescription.SourceTooLong]: ApiErrorCode.InvalidSource,
  [RejectionDescription.ExpiryReached]: ApiErrorCode.InvalidExpiry,
  [RejectionDescription.InvalidMsisdn]: ApiErrorCode.InvalidMsisdn,
  [RejectionDescription.InternalError]: ApiErrorCode.InternalError,
};

function refuseFirstRejected(messages: readonly DecidedMessage[]): void {
  for (const { events } of messages) {
    const event = events[0];
    if (event?.type !== 'MessageRejected') continue;
    const { description } = event.data as MessageRejectedV1;
    throw new BatchRejectedError(REFUSAL_CODES[description], description);
  }
}

type Verdict =
  | { queued: true; analysis: TextAnalysis; destination: string }
  | { queued: false; analysis: TextAnalysis | null; description: RejectionDescription };

function messageDecider(command: SubmitBatchDecision, nowMs: number) {
  const { data, batchId, now } = command;
  const template: SmsCommonProperties = data.template ?? {};
  const batch: BatchContext = {
    batchId,
    clientBatchId: data.clientBatchId ?? null,
    accountId: data.accountId,
    subAccountId: data.subAccountId,
    now,
    nowMs,
  };
  // Batches repeat the template text and often destinations: analyse and parse each only once.
  const analyses = new Map<SmsEncodingName, Map<string, TextAnalysis>>();
  const destinations = new Map<string | undefined, Map<string, string | null>>();

  const analysisOf = (text: string, encoding: SmsEncodingName): TextAnalysis => {
    let byText = analyses.get(encoding);
    if (byText === undefined) analyses.set(encoding, (byText = new Map()));
    let analysis = byText.get(text);
    if (analysis === undefined) byText.set(text, (analysis = analyzeText(text, encoding)));
    return analysis;
  };
  const destinationOf = ({ destination, country }: SmsBatchItem): string | null => {
    let byDestination = destinations.get(country);
    if (byDestination === undefined) destinations.set(country, (byDestination = new Map()));
    let normalized = byDestination.get(destination);
    if (normalized === undefined) byDestination.set(destination, (normalized = normalizeMsisdn(destination, country)));
    return normalized;
  };

  /** The contract's checks in its order; the first that fails is the description. */
  const verdictOf = (item: SmsBatchItem, message: MergedMessage): Verdict => {
    if (!message.text) return { queued: false, analysis: null, description: RejectionDescription.TextMissing };
    const analysis = analysisOf(message.text, message.encoding);
    if (!isWithinTextLimit(analysis)) return { queued: false, analysis, description: RejectionDescription.TextTooLong };
    if (message.source !== null && !isSourceWithinLimit(message.source)) {
      return { queued: false, analysis, description: RejectionDescription.SourceTooLong };
    }
    if (message.expiryMs !== null && message.expiryMs <= nowMs) {
      return { queued: false, analysis, description: RejectionDescription.ExpiryReached };
    }
    const destination = destinationOf(item);
    if (destination === null) return { queued: false, analysis, description: RejectionDescription.InvalidMsisdn };
    return { queued: true, analysis, destination };
  };

  return (item: SmsBatchItem, index: number, umid: string): MessageEvent => {
    const message = merge(item, template);
    const verdict = verdictOf(item, message);
    return verdict.queued
      ? queuedEvent(batch, item, index, umid, message, verdict.analysis, verdict.destination)
      : rejectedEvent(batch, item, index, umid, message, verdict.analysis, verdict.description);
  };
}

/** `??` rather than `in`: a JSON null from the gateway means "not given", like an absent field. */
function merge(item: SmsBatchItem, template: SmsCommonProperties): MergedMessage {
  const encoding = item.encoding ?? template.encoding ?? 'AUTO';
  if (encoding !== 'AUTO' && encoding !== 'GSM7' && encoding !== 'UCS2') {
    throw new BatchRejectedError(ApiErrorCode.InvalidEncoding, `Invalid encoding: ${String(encoding)}`);
  }
  return {
    text: item.text ?? template.text,
    // An empty source is no source: the carrier's default sender applies.
    source: (item.source ?? template.source) || null,
    encoding,
    scheduledMs: instantOrNull(item.scheduled ?? template.scheduled, ApiErrorCode.InvalidScheduleTime, 'scheduled'),
    expiryMs: instantOrNull(item.expiry ?? template.expiry, ApiErrorCode.InvalidExpiry, 'expiry'),
    dlrCallbackUrl: item.dlrCallbackUrl ?? template.dlrCallbackUrl ?? null,
  };
}

function instantOrNull(value: string | undefined, code: ApiErrorCode, field: string): number | null {
  if (value === undefined) return null;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new BatchRejectedError(code, `Invalid ${field} timestamp: ${value}`);
  return ms;
}

function assertBatchSize(count: number): void {
  if (count === 0) throw new BatchRejectedError(ApiErrorCode.InvalidParameter, 'messages must not be empty');
  if (count > MAX_MESSAGES_PER_BATCH) {
    throw new BatchRejectedError(
      ApiErrorCode.BulkLimitReached,
      `A batch holds at most ${MAX_MESSAGES_PER_BATCH} messages, got ${count}`,
    );
  }
}

function batchIdOf(data: unknown): string | null {
  if (typeof data !== 'object' || data === null || !('batchId' in data)) return null;
  return typeof data.batchId === 'string' ? data.batchId : null;
}
