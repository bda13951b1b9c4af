import { v7 as uuidv7 } from 'uuid';
import type { AppendToStream } from '@seed/platform-event-store';
import { batchStreamId, messageStreamId, type InboundMessageReceivedV1 } from '@seed/sms-batch-contracts';
import { decideSubmitBatch, initialBatchState } from '@seed/sms-batch-domain';

/**
 * The answer to HELP or INFO: the number's help text, sent back from that number to the handset as
 * a batch of one of the number's sub-account, decided by the batch decider like any other. Written
 * in the transaction that records the inbound message, so that the answer is sent once; it is an
 * outbound message like any other (routed, rated, opt-outs honoured, status webhooks posted).
 */
export function helpReplyAppends(message: InboundMessageReceivedV1, helpText: string | null): AppendToStream[] {
  if (message.keyword !== 'help' || helpText === null || message.accountId === null || message.subAccountId === null) return [];
  const batchId = uuidv7();
  const decided = decideSubmitBatch(
    {
      data: {
        accountId: message.accountId,
        subAccountId: message.subAccountId,
        clientBatchId: `help-${message.umid}`,
        includeMessagesInResponse: false,
        messages: [{ destination: message.source, source: message.destination, text: helpText }],
      },
      batchId,
      umids: [uuidv7()],
      now: message.receivedAt,
    },
    initialBatchState(),
  );
  return [
    { streamId: batchStreamId(batchId), expectedVersion: 0, events: decided.batch },
    ...decided.messages.map((m) => ({ streamId: messageStreamId(m.umid), expectedVersion: 0, events: m.events })),
  ];
}
