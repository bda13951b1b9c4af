import { Body, Controller, Get, HttpCode, Param, Post, Put, UseGuards } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  callbackUrlProblem,
  WEBHOOK_DISPATCHER_COMMAND_TOPIC,
  type AccountData,
  type AccountWebhookResult,
  type DeadLettersResult,
  type RedriveDeadLetterData,
  type RedriveResult,
  type RotateSecretData,
  type RotateSecretResult,
  type SetAccountWebhookData,
} from '@seed/webhook-dispatcher-contracts';
import { openSealedText, parseKeyring, type Keyring } from '@seed/platform-secrets';
import { AccountsRepository } from '../accounts/accounts.repository';
import { AdminTokenGuard } from '../admin/admin-token.guard';
import { CommandClient } from '../commands/command-client';
import { GatewayConfig } from '../gateway.config';
import { ApiError } from '../http/api-error';
import { validateBody } from '../http/validate-body';
import { AccountParam } from '../openapi/path-params.openapi';
import { AdminTokenProtected } from '../openapi/protected-by.openapi';
import { SetWebhookDto } from './webhooks.dto';
import { DeadLettersDocs, RedriveAllDocs, RedriveOneDocs, RotateSecretDocs, SetWebhookDocs } from './webhooks.openapi';

const DELIVERY_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Account ids as the admin API creates them (admin.dto.ts); nothing else can exist. */
const ACCOUNT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{1,62}$/;

/**
 * The operator's webhook settings of an account: its default callback URL and signing secret,
 * and the deliveries that gave up (dead letters). The webhook dispatcher owns this state; the
 * gateway checks the account exists (it owns accounts) and the request's shape, then asks it.
 */
@Controller('admin/v1/accounts/:accountId/webhooks')
@UseGuards(AdminTokenGuard)
@ApiTags('Webhooks')
@AdminTokenProtected()
@AccountParam()
export class WebhooksController {
  /** Opens the signing secret the dispatcher sends sealed (it never crosses Kafka in clear). */
  private readonly transitKeys: Keyring;

  constructor(
    private readonly accounts: AccountsRepository,
    private readonly commands: CommandClient,
    config: GatewayConfig,
  ) {
    this.transitKeys = parseKeyring(config.MESSAGE_SEALING_KEYS);
  }

  @Put()
  @SetWebhookDocs()
  async setDefault(@Param('accountId') accountId: string, @Body() body: unknown): Promise<{ dlrCallbackUrl: string | null; signingSecret: string }> {
    const { dlrCallbackUrl } = validateBody(SetWebhookDto, body);
    const problem = callbackUrlProblem(dlrCallbackUrl);
    if (problem) throw ApiError.badRequest(problem);
    await this.requireAccount(accountId);
    const result = await this.send<AccountWebhookResult, SetAccountWebhookData>(accountId, 'SetAccountWebhook', { accountId, dlrCallbackUrl });
    return { dlrCallbackUrl: result.dlrCallbackUrl, signingSecret: openSealedText(this.transitKeys, result.sealedSigningSecret) };
  }

  @Post('rotate-secret')
  @HttpCode(200)
  @RotateSecretDocs()
  async rotate(@Param('accountId') accountId: string): Promise<{ signingSecret: string; previousSecretValidUntil: string | null }> {
    await this.requireAccount(accountId);
    const result = await this.send<RotateSecretResult, RotateSecretData>(accountId, 'RotateWebhookSecret', { accountId });
    return { signingSecret: openSealedText(this.transitKeys, result.sealedSigningSecret), previousSecretValidUntil: result.previousSecretValidUntil };
  }

  @Get('dead-letters')
  @DeadLettersDocs()
  async deadLetters(@Param('accountId') accountId: string): Promise<DeadLettersResult> {
    await this.requireAccount(accountId);
    return this.send<DeadLettersResult, AccountData>(accountId, 'ListDeadLetters', { accountId });
  }

  @Post('dead-letters/redrive')
  @HttpCode(200)
  @RedriveAllDocs()
  async redriveAll(@Param('accountId') accountId: string): Promise<RedriveResult> {
    await this.requireAccount(accountId);
    return this.send<RedriveResult, AccountData>(accountId, 'RedriveAllDeadLetters', { accountId });
  }

  @Post('dead-letters/:deliveryId/redrive')
  @HttpCode(200)
  @RedriveOneDocs()
  async redriveOne(@Param('accountId') accountId: string, @Param('deliveryId') deliveryId: string): Promise<RedriveResult> {
    await this.requireAccount(accountId);
    if (!DELIVERY_ID.test(deliveryId)) throw ApiError.notFound(`no dead letter ${deliveryId} in account ${accountId}`);
    return this.send<RedriveResult, RedriveDeadLetterData>(accountId, 'RedriveDeadLetter', { accountId, deliveryId: deliveryId.toLowerCase() });
  }

  private async requireAccount(accountId: string): Promise<void> {
    // An id no account can have is not looked up: a NUL byte (`%00`) would fail in Postgres (a 500).
    if (!ACCOUNT_ID.test(accountId) || (await this.accounts.subAccountsOf(accountId)).length === 0) {
      throw ApiError.notFound(`account ${accountId} does not exist`);
    }
  }

  private send<TResult, TData>(accountId: string, type: string, data: TData): Promise<TResult> {
    return this.commands.send<TResult, TData>(WEBHOOK_DISPATCHER_COMMAND_TOPIC, accountId, type, data);
  }
}
