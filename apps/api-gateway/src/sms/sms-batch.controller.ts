import { Body, Controller, HttpCode, Param, Post, Req, UseGuards } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { SMS_BATCH_COMMAND_TOPIC, type BatchResponse, type SubmitBatchData } from '@seed/sms-batch-contracts';
import { ApiKeyGuard, type AuthenticatedRequest } from '../accounts/api-key.guard';
import { CommandClient } from '../commands/command-client';
import { SubAccountParam } from '../openapi/path-params.openapi';
import { ApiKeyProtected } from '../openapi/protected-by.openapi';
import { toSubmitBatchData } from './batch-request.validation';
import { toCompactBatchData } from './compact-batch-request.validation';
import { SendCompactDocs, SendManyDocs } from './sms-batch.openapi';

@Controller('sms/v1/:subAccountId')
@UseGuards(ApiKeyGuard)
@ApiTags('SMS')
@ApiKeyProtected({ subAccountInPath: true })
@SubAccountParam()
export class SmsBatchController {
  constructor(private readonly commands: CommandClient) {}

  /** Batch send: shape checked here, every message decided by sms-batch. */
  @Post('many')
  @HttpCode(200)
  @SendManyDocs()
  async sendMany(@Param('subAccountId') subAccountId: string, @Body() body: unknown, @Req() req: AuthenticatedRequest): Promise<BatchResponse> {
    return this.submit(subAccountId, toSubmitBatchData(body, req.accountId, subAccountId, new Date()));
  }

  /** Compact batch: one text to many destinations, decided exactly as `many`. */
  @Post('many/compact')
  @HttpCode(200)
  @SendCompactDocs()
  async sendCompact(@Param('subAccountId') subAccountId: string, @Body() body: unknown, @Req() req: AuthenticatedRequest): Promise<BatchResponse> {
    return this.submit(subAccountId, toCompactBatchData(body, req.accountId, subAccountId, new Date()));
  }

  // Keyed by sub-account: one sub-account's batches are decided in order, which keeps
  // clientBatchId checks free of races without a lock.
  private submit(subAccountId: string, data: SubmitBatchData): Promise<BatchResponse> {
    return this.commands.send<BatchResponse, SubmitBatchData>(SMS_BATCH_COMMAND_TOPIC, subAccountId, 'SubmitBatch', data);
  }
}
