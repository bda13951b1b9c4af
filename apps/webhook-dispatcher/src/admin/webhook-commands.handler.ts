import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { ApiErrorCode, type CommandMessage, type CommandReply } from '@seed/contracts';
import { CommandPipeline, type Decision, type SqlExecutor } from '@seed/platform-event-store';
import type { CommandContext } from '@seed/platform-kafka';
import type {
  AccountData,
  AccountWebhookResult,
  DeadLettersResult,
  RedriveDeadLetterData,
  RedriveResult,
  RotateSecretData,
  RotateSecretResult,
  SetAccountWebhookData,
} from '@seed/webhook-dispatcher-contracts';
import { callbackUrlProblem, decideAccountWebhook, lastReplacedValidUntil, type AccountWebhookState } from '@seed/webhook-dispatcher-domain';
import { AccountWebhooksStore, newSigningSecret, SecretSealer, type LoadedAccount } from '../accounts/account-webhooks.store';
import { DeliveryStore } from '../sending/delivery-store';
import { TRANSIT_SEALER, WEBHOOK_OPTIONS, type WebhookOptions } from '../webhook-options';
import { WebhookSender } from '../sending/webhook-sender';

const CONSUMER = 'webhook-commands';

const badRequest = (message: string) => ({ ok: false as const, failure: { status: 400, code: ApiErrorCode.InvalidParameter, message } });
const notFound = (message: string) => ({ ok: false as const, failure: { status: 404, code: ApiErrorCode.NotFound, message } });

/**
 * The admin API's webhook operations. Set and rotate answer the secret once, sealed for the
 * gateway; their processed-command record keeps the answer sealed too, so a redelivered command
 * answers the same secret without ever storing it readable.
 */
@Controller()
export class WebhookCommandsHandler {
  constructor(
    private readonly accounts: AccountWebhooksStore,
    private readonly deliveries: DeliveryStore,
    private readonly pipeline: CommandPipeline,
    private readonly sealer: SecretSealer,
    private readonly sender: WebhookSender,
    @Inject(WEBHOOK_OPTIONS) private readonly options: WebhookOptions,
    @Inject(TRANSIT_SEALER) private readonly transit: SecretSealer,
  ) {}

  @MessagePattern('SetAccountWebhook')
  async setWebhook(@Payload() command: CommandMessage<SetAccountWebhookData>, @Ctx() context: CommandContext): Promise<CommandReply<AccountWebhookResult>> {
    const problem = typeof command.data.dlrCallbackUrl === 'string' ? callbackUrlProblem(command.data.dlrCallbackUrl) : 'dlrCallbackUrl must be a string';
    if (problem) return badRequest(problem);
    return this.secretCommand(command, context, (state, at) =>
      decideAccountWebhook(
        { type: 'SetWebhook', accountId: command.data.accountId, dlrCallbackUrl: command.data.dlrCallbackUrl, newSealedSecret: this.sealer.seal(newSigningSecret()), at },
        state,
      ),
    );
  }

  @MessagePattern('RotateWebhookSecret')
  async rotate(@Payload() command: CommandMessage<RotateSecretData>, @Ctx() context: CommandContext): Promise<CommandReply<RotateSecretResult>> {
    return this.secretCommand(command, context, (state, at) =>
      decideAccountWebhook(
        { type: 'RotateSecret', accountId: command.data.accountId, newSealedSecret: this.sealer.seal(newSigningSecret()), overlapMs: this.options.secretOverlapMs, at },
        state,
      ),
    ) as Promise<CommandReply<RotateSecretResult>>;
  }

  @MessagePattern('ListDeadLetters')
  async list(@Payload() command: CommandMessage<AccountData>): Promise<CommandReply<DeadLettersResult>> {
    return { ok: true, result: { deadLetters: await this.deliveries.deadLetters(command.data.accountId) } };
  }

  @MessagePattern('RedriveDeadLetter')
  async redriveOne(@Payload() command: CommandMessage<RedriveDeadLetterData>): Promise<CommandReply<RedriveResult>> {
    const at = new Date().toISOString();
    const { accountId, deliveryId } = command.data;
    if (!/^[0-9a-f-]{36}$/i.test(deliveryId)) return notFound(`no dead letter ${deliveryId} in account ${accountId}`);
    const done = await this.deliveries.decide([{ type: 'Redrive', deliveryId: deliveryId.toLowerCase(), at }], at, { accountId });
    if (done.decided.length === 0) return notFound(`no dead letter ${deliveryId} in account ${accountId}`);
    this.sender.wake();
    return { ok: true, result: { redriven: 1 } };
  }

  @MessagePattern('RedriveAllDeadLetters')
  async redriveAll(@Payload() command: CommandMessage<AccountData>): Promise<CommandReply<RedriveResult>> {
    const at = new Date().toISOString();
    const ids = await this.deliveries.deadLetterIds(command.data.accountId);
    let redriven = 0;
    for (let i = 0; i < ids.length; i += 1000) {
      const chunk = ids.slice(i, i + 1000).map((deliveryId) => ({ type: 'Redrive' as const, deliveryId, at }));
      redriven += (await this.deliveries.decide(chunk, at, { accountId: command.data.accountId })).decided.length;
    }
    if (redriven > 0) this.sender.wake();
    return { ok: true, result: { redriven } };
  }

  /**
   * Set and rotate: the pipeline keeps the answer sealed in the command's record, and the answer
   * is opened from it, the first time as on a redelivery.
   */
  private async secretCommand(
    command: CommandMessage<{ accountId: string }>,
    context: CommandContext,
    decide: (state: AccountWebhookState, at: string) => ReturnType<typeof decideAccountWebhook>,
  ): Promise<CommandReply<AccountWebhookResult>> {
    const metadata = { correlationId: context.correlationId, causationId: context.causationId, occurredAt: new Date().toISOString() };
    const { sealed } = await this.pipeline.run({ consumer: CONSUMER, commandId: command.commandId, metadata }, (tx) => this.decideSecretCommand(tx, command, decide));
    return { ok: true, result: JSON.parse(this.sealer.open(sealed)) as AccountWebhookResult };
  }

  private async decideSecretCommand(
    tx: SqlExecutor,
    command: CommandMessage<{ accountId: string }>,
    decide: (state: AccountWebhookState, at: string) => ReturnType<typeof decideAccountWebhook>,
  ): Promise<Decision<{ sealed: string }>> {
    const { accountId } = command.data;
    const at = new Date().toISOString();
    // `load` answers every id asked for (an account without settings: initial state, version 0).
    const loaded = (await this.accounts.load(tx, [accountId])).get(accountId) as LoadedAccount;
    const { append, state } = await this.accounts.decided(tx, accountId, loaded, decide(loaded.state, at));
    const result: AccountWebhookResult & { previousSecretValidUntil: string | null } = {
      accountId,
      dlrCallbackUrl: state.dlrCallbackUrl,
      // At rest the secret is sealed with WEBHOOK_SECRET_SEALING_KEYS; on its way to the gateway with the shared transit keys.
      sealedSigningSecret: this.transit.seal(this.sealer.open(state.sealedSecret as string)),
      previousSecretValidUntil: lastReplacedValidUntil(state),
    };
    return { appends: [append], result: { sealed: this.sealer.seal(JSON.stringify(result)) }, occurredAt: at };
  }
}
