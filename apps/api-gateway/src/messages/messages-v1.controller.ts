import { Body, Controller, Get, HttpCode, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import {
  SMS_BATCH_COMMAND_TOPIC,
  type BatchResponse,
  type BatchResponseMessage,
  type MessageView,
  type SubmitBatchData,
  type SubmitBatchReply,
} from '@seed/sms-batch-contracts';
import { ApiKeyGuard, type AuthenticatedRequest } from '../accounts/api-key.guard';
import { CommandClient } from '../commands/command-client';
import { SubAccountParam } from '../openapi/path-params.openapi';
import { ApiKeyProtected } from '../openapi/protected-by.openapi';
import { toSubmitBatchData } from '../sms/batch-request.validation';
import { readMessage } from '../sms/message-read';
import { MessageReadDocs } from '../sms/sms-read.openapi';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, idempotencyOf } from './idempotency-key';
import { SendMessageBatchDocs, SendSingleMessageDocs } from './messages-v1.openapi';
import { toSingleMessageData } from './single-message-request.validation';

/**
 * The provider's current API generation, on the messaging listener beside the legacy paths. Only
 * paths and envelopes differ: the commands, the decisions in sms-batch and the read model are the
 * legacy ones, so a client can move between the generations without its messages noticing.
 */
@Controller('api/v1/subaccounts/:subAccountId/messages')
@UseGuards(ApiKeyGuard)
@ApiTags('Messages')
@ApiKeyProtected({ subAccountInPath: true })
@SubAccountParam()
export class MessagesV1Controller {
  constructor(private readonly commands: CommandClient) {}

  /** One SMS; a message that would be rejected is refused with 400 instead. */
  @Post()
  @HttpCode(200)
  @SendSingleMessageDocs()
  async send(
    @Param('subAccountId') subAccountId: string,
    @Body() body: unknown,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
  ): Promise<BatchResponseMessage> {
    const idempotency = idempotencyOf(req.headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()], 'sendMessage', subAccountId, body);
    const response = await this.submit(subAccountId, { ...toSingleMessageData(body, req.accountId, subAccountId, new Date()), ...(idempotency && { idempotency }) }, res);
    const message = response.messages?.[0];
    if (!message) throw new Error('sms-batch answered a single send without its message');
    return message;
  }

  /** The body and response of `POST /sms/v1/{subAccountId}/many`. */
  @Post('batch')
  @HttpCode(200)
  @SendMessageBatchDocs()
  async sendBatch(
    @Param('subAccountId') subAccountId: string,
    @Body() body: unknown,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
  ): Promise<BatchResponse> {
    const idempotency = idempotencyOf(req.headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()], 'sendMessageBatch', subAccountId, body);
    return this.submit(subAccountId, { ...toSubmitBatchData(body, req.accountId, subAccountId, new Date()), ...(idempotency && { idempotency }) }, res);
  }

  /** As `GET /sms/v1/{subAccountId}/messages/{umid}`. */
  @Get(':umid')
  @MessageReadDocs('getMessage')
  async message(@Param('subAccountId') subAccountId: string, @Param('umid') umid: string, @Req() req: AuthenticatedRequest): Promise<MessageView> {
    return readMessage(this.commands, req.accountId, subAccountId, umid);
  }

  /**
   * Keyed by sub-account, as the legacy batch: one sub-account's requests are decided in order. An
   * answer repeated for a known Idempotency-Key says so in a header, never in the body.
   */
  private async submit(subAccountId: string, data: SubmitBatchData, res: Response): Promise<BatchResponse> {
    const { idempotentReplay, ...response } = await this.commands.send<SubmitBatchReply, SubmitBatchData>(SMS_BATCH_COMMAND_TOPIC, subAccountId, 'SubmitBatch', data);
    if (idempotentReplay) res.setHeader(IDEMPOTENT_REPLAYED_HEADER, 'true');
    return response;
  }
}
