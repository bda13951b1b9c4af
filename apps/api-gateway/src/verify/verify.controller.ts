import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { keyedHash, parseKeyring, type Keyring } from '@seed/platform-secrets';
import {
  generationKey,
  VERIFICATION_COMMAND_TOPIC,
  type CheckVerificationData,
  type PresentedCode,
  type StartVerificationData,
  type VerificationView,
} from '@seed/verification-contracts';
import { ApiKeyGuard, type AuthenticatedRequest } from '../accounts/api-key.guard';
import { CommandClient } from '../commands/command-client';
import { GatewayConfig } from '../gateway.config';
import { ApiError } from '../http/api-error';
import { SubAccountParam } from '../openapi/path-params.openapi';
import { ApiKeyProtected } from '../openapi/protected-by.openapi';
import { codeParameter, toStartVerificationData } from './verify-request.validation';
import { CheckVerificationDocs, GenerateVerificationDocs } from './verify.openapi';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Verify v2. The gateway checks the shape; the verification service decides. A presented code
 * never crosses Kafka in clear: it is sent as its keyed hashes (VERIFY_CODE_HASH_KEYS).
 */
@Controller('verify/v2/:subAccountId')
@UseGuards(ApiKeyGuard)
@ApiTags('Verify')
@ApiKeyProtected({ subAccountInPath: true })
@SubAccountParam()
export class VerifyController {
  private readonly hashKeys: Keyring;

  constructor(
    private readonly commands: CommandClient,
    config: GatewayConfig,
  ) {
    this.hashKeys = parseKeyring(config.VERIFY_CODE_HASH_KEYS);
  }

  /** Generate and send a code: 200 with the verification (the contract shows no status; 200 like the batch send). */
  @Post()
  @HttpCode(200)
  @GenerateVerificationDocs()
  generate(@Param('subAccountId') subAccountId: string, @Body() body: unknown, @Req() req: AuthenticatedRequest): Promise<VerificationView> {
    const data = toStartVerificationData(body, req.accountId, subAccountId);
    // Keyed by sub-account and number: generations for one number are decided one after the other.
    return this.commands.send<VerificationView, StartVerificationData>(
      VERIFICATION_COMMAND_TOPIC,
      generationKey(subAccountId, data.msisdn),
      'StartVerification',
      data,
    );
  }

  /** Read the status, or validate `code`. */
  @Get(':uid')
  @CheckVerificationDocs()
  check(
    @Param('subAccountId') subAccountId: string,
    @Param('uid') uid: string,
    @Query() query: unknown,
    @Req() req: AuthenticatedRequest,
  ): Promise<VerificationView> {
    const code = codeParameter(query);
    if (!UUID.test(uid)) throw ApiError.notFound('no such verification in this sub-account');
    const id = uid.toLowerCase();
    const data: CheckVerificationData = { accountId: req.accountId, subAccountId, uid: id, ...(code !== undefined ? { code: this.presented(id, code) } : {}) };
    // Keyed by uid: the validations of one verification queue on one partition.
    return this.commands.send<VerificationView, CheckVerificationData>(VERIFICATION_COMMAND_TOPIC, id, 'CheckVerification', data);
  }

  private presented(uid: string, code: string): PresentedCode {
    return {
      length: code.length,
      digests: Object.fromEntries(this.hashKeys.ids.map((id) => [id, keyedHash(this.hashKeys.byId(id) as Buffer, uid, code)])),
    };
  }
}
