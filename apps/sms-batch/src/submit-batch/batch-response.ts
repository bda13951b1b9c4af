import {
  QUEUED_DESCRIPTION,
  type BatchResponse,
  type BatchResponseMessage,
  type BatchSubmittedV1,
  type MessageQueuedV1,
  type MessageRejectedV1,
} from '@seed/sms-batch-contracts';

export type FirstMessageEvent =
  | { type: 'MessageQueued'; data: MessageQueuedV1 }
  | { type: 'MessageRejected'; data: MessageRejectedV1 };

/**
 * The contract's response, built from the events that recorded the decision. A repeated request
 * (same command, or same clientBatchId) gets the first response back because it is rebuilt
 * from the same events.
 */
export function toBatchResponse(
  batch: BatchSubmittedV1,
  messages: readonly FirstMessageEvent[],
  includeMessages: boolean,
): BatchResponse {
  const response: BatchResponse = {
    batchId: batch.batchId,
    ...(batch.clientBatchId !== null ? { clientBatchId: batch.clientBatchId } : {}),
    acceptedCount: batch.acceptedCount,
    rejectedCount: batch.rejectedCount,
  };
  if (includeMessages) response.messages = messages.map(toResponseMessage);
  return response;
}

function toResponseMessage(event: FirstMessageEvent): BatchResponseMessage {
  const d = event.data;
  return {
    umid: d.umid,
    ...(d.clientMessageId !== null ? { clientMessageId: d.clientMessageId } : {}),
    destination: d.destination,
    encoding: d.encoding,
    status:
      event.type === 'MessageQueued'
        ? { code: 'QUEUED', description: QUEUED_DESCRIPTION }
        : { code: 'REJECTED', description: event.data.description },
  };
}
