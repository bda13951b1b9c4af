import { SMS_BATCH_COMMAND_TOPIC, type GetMessageData, type MessageView } from '@seed/sms-batch-contracts';
import type { CommandClient } from '../commands/command-client';
import { ApiError } from '../http/api-error';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One message with its state and history, as both API generations read it. */
export function readMessage(commands: CommandClient, accountId: string, subAccountId: string, umid: string): Promise<MessageView> {
  if (!UUID.test(umid)) throw ApiError.notFound('no such message in this sub-account');
  return commands.send<MessageView, GetMessageData>(SMS_BATCH_COMMAND_TOPIC, subAccountId, 'GetMessage', { accountId, subAccountId, umid: umid.toLowerCase() });
}
