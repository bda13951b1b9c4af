import type { DecidedBatch } from '@seed/sms-batch-domain';
import type { SubmitBatchData } from '@seed/sms-batch-contracts';

/** The command as the decider must see it: sealed items carry their real text, opened. */
export function openSealedItems(data: SubmitBatchData, open: (sealed: string) => string): SubmitBatchData {
  if (!data.messages.some((m) => m.sealedText !== undefined)) return data;
  return { ...data, messages: data.messages.map((m) => (m.sealedText === undefined ? m : { ...m, text: open(m.sealedText) })) };
}

/**
 * The decided events as they may be stored: a sealed item's MessageQueued keeps the sealed text
 * and shows only the redacted `text` its sender gave, so no event holds the secret in clear.
 */
export function sealQueuedTexts(decided: DecidedBatch, data: SubmitBatchData): DecidedBatch {
  if (!data.messages.some((m) => m.sealedText !== undefined)) return decided;
  return {
    ...decided,
    messages: decided.messages.map((message, index) => {
      const item = data.messages[index];
      if (item?.sealedText === undefined) return message;
      const sealedText = item.sealedText;
      return {
        ...message,
        events: message.events.map((event) =>
          event.type === 'MessageQueued' ? { ...event, data: { ...event.data, text: item.text ?? '', sealedText } } : event,
        ),
      };
    }),
  };
}
