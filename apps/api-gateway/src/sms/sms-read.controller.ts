import { Controller, Get, Param, Query, Req, UseGuards } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { SMS_BATCH_COMMAND_TOPIC, type BatchView, type GetBatchData, type InboundPage, type ListInboundQuery, type MessageView } from '@seed/sms-batch-contracts';
import { ApiKeyGuard, type AuthenticatedRequest } from '../accounts/api-key.guard';
import { CommandClient } from '../commands/command-client';
import { ApiError } from '../http/api-error';
import { SubAccountParam } from '../openapi/path-params.openapi';
import { ApiKeyProtected } from '../openapi/protected-by.openapi';
import { inboundListParameters } from './inbound-list.parameters';
import { InboundListDocs } from './inbound-read.openapi';
import { readMessage, UUID } from './message-read';
import { BatchReadDocs, MessageReadDocs } from './sms-read.openapi';

/**
 * Reads beyond the contract, as the provider's current API generation offers them: a message
 * with its state and history, a batch with counts per state. Scoped like everything else.
 */
@Controller('sms/v1/:subAccountId')
@UseGuards(ApiKeyGuard)
@ApiTags('SMS')
@ApiKeyProtected({ subAccountInPath: true })
@SubAccountParam()
export class SmsReadController {
  constructor(private readonly commands: CommandClient) {}

  @Get('messages/:umid')
  @MessageReadDocs('getSmsMessage')
  async message(@Param('subAccountId') subAccountId: string, @Param('umid') umid: string, @Req() req: AuthenticatedRequest): Promise<MessageView> {
    return readMessage(this.commands, req.accountId, subAccountId, umid);
  }

  @Get('batches/:batchId')
  @BatchReadDocs()
  async batch(@Param('subAccountId') subAccountId: string, @Param('batchId') batchId: string, @Req() req: AuthenticatedRequest): Promise<BatchView> {
    if (!UUID.test(batchId)) throw ApiError.notFound('no such batch in this sub-account');
    return this.commands.send<BatchView, GetBatchData>(SMS_BATCH_COMMAND_TOPIC, subAccountId, 'GetBatch', {
      accountId: req.accountId,
      subAccountId,
      batchId: batchId.toLowerCase(),
    });
  }

  /** The sub-account's inbound SMS, newest first (its numbers' messages). */
  @Get('inbound')
  @InboundListDocs()
  async inbound(@Param('subAccountId') subAccountId: string, @Req() req: AuthenticatedRequest, @Query() query: unknown): Promise<InboundPage> {
    const parameters = inboundListParameters(query);
    return this.commands.send<InboundPage, ListInboundQuery['data']>(SMS_BATCH_COMMAND_TOPIC, subAccountId, 'ListInbound', { accountId: req.accountId, subAccountId, ...parameters });
  }
}
