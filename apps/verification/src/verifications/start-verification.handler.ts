import { v7 as uuidv7 } from 'uuid';
import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import type { CommandReply } from '@seed/contracts';
import { ProcessedMessages, quoteSchema, type AppendMetadata, type SqlExecutor } from '@seed/platform-event-store';
import type { CommandContext } from '@seed/platform-kafka';
import { LOGGER, ServiceSchema, SubscriptionRegistry } from '@seed/platform-nest';
import type { StartVerificationCommand, StartVerificationData, VerificationView } from '@seed/verification-contracts';
import {
  decideVerification,
  evolveVerification,
  initialVerificationState,
  isActive,
  redactedText,
  renderText,
  settingsOf,
  viewOf,
  type Verification,
} from '@seed/verification-domain';
import { AbuseLimits } from '../limits/abuse-limits';
import { CodeSecrets } from './code-secrets';
import { MAX_COMMAND_AGE_MS, replyOf, staleCommandReply } from './command-failures';
import { VerificationStore } from './verification-store';

const CONSUMER = 'start-verification';

/**
 * A generation request: resends the number's waiting verification (same uid, same code) once its
 * resend interval has passed, or starts a new one (first request, the old one final or expired, or
 * resetSession). Generations for one number run one at a time (command key and an advisory lock);
 * each SMS counts against the abuse limits. The SMS itself is sent by the follower of the log.
 */
@Controller()
export class StartVerificationHandler {
  private readonly s: string;

  constructor(
    private readonly dataSource: DataSource,
    private readonly verifications: VerificationStore,
    private readonly processed: ProcessedMessages,
    private readonly subscriptions: SubscriptionRegistry,
    private readonly secrets: CodeSecrets,
    private readonly limits: AbuseLimits,
    schema: ServiceSchema,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(MAX_COMMAND_AGE_MS) private readonly maxCommandAgeMs: number,
  ) {
    this.s = quoteSchema(schema.name);
  }

  @MessagePattern('StartVerification')
  async start(@Payload() command: StartVerificationCommand, @Ctx() context: CommandContext): Promise<CommandReply<VerificationView>> {
    const stale = staleCommandReply(command.issuedAt, this.maxCommandAgeMs);
    if (stale) {
      this.logger.warn({ commandId: command.commandId, issuedAt: command.issuedAt }, 'generation request too old: not started');
      return stale;
    }
    const appended: string[] = [];
    const reply = await replyOf(() => this.dataSource.transaction((tx) => this.decide(tx, command, context, appended)));
    if (reply.ok) this.subscriptions.wakeFor(appended);
    return reply;
  }

  /** Decides the generation; the types of the events it appends go into `appended` (who to wake). */
  private async decide(tx: SqlExecutor, command: StartVerificationCommand, context: CommandContext, appended: string[]): Promise<VerificationView> {
    const { data } = command;
    // Per account and number, not per sub-account: the number's abuse count is the account's.
    await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${this.s}:destination:${data.accountId}:${data.msisdn}`]);
    // Looked up under the lock: a copy of this command still being decided elsewhere (redelivered
    // during a rebalance) has committed by now, and its answer is this one's, not a 429.
    const done = await this.processed.find<VerificationView>(tx, CONSUMER, command.commandId);
    if (done) return done.result;
    const now = new Date();
    const metadata: AppendMetadata = { correlationId: context.correlationId, causationId: command.commandId, traceparent: context.traceparent, occurredAt: now.toISOString() };

    const previousUid = await this.sessionOf(tx, data.subAccountId, data.msisdn);
    if (previousUid !== null) {
      await this.verifications.lock(tx, previousUid);
      const { state, version } = await this.verifications.load(tx, previousUid);
      if (isActive(state, now)) {
        const events = decideVerification({ type: data.resetSession === true ? 'Reset' : 'Resend', now }, state);
        await this.verifications.append(tx, previousUid, version, events, metadata);
        appended.push(...events.map((e) => e.type));
        if (data.resetSession !== true) {
          await this.countSms(tx, data, now);
          const view = viewOf(events.reduce(evolveVerification, state) as Verification, now);
          await this.processed.record(tx, CONSUMER, command.commandId, view);
          this.logger.info({ uid: previousUid }, 'verification code resent');
          return view;
        }
      }
    }

    await this.countSms(tx, data, now);
    const view = await this.startNew(tx, data, now, metadata, appended);
    await this.processed.record(tx, CONSUMER, command.commandId, view);
    return view;
  }

  private async startNew(tx: SqlExecutor, data: StartVerificationData, now: Date, metadata: AppendMetadata, appended: string[]): Promise<VerificationView> {
    const uid = uuidv7();
    const settings = settingsOf(data);
    const code = this.secrets.newCode(settings.codeLength);
    const events = decideVerification(
      {
        type: 'Start',
        uid,
        accountId: data.accountId,
        subAccountId: data.subAccountId,
        msisdn: data.msisdn,
        settings,
        ...this.secrets.hash(uid, code),
        sealedText: this.secrets.seal(renderText(settings, code)),
        redactedText: redactedText(settings),
        now,
      },
      initialVerificationState(),
    );
    await this.verifications.append(tx, uid, 0, events, metadata);
    appended.push(...events.map((e) => e.type));
    await tx.query(
      `INSERT INTO ${this.s}.destination_sessions (sub_account_id, msisdn, uid) VALUES ($1, $2, $3)
       ON CONFLICT (sub_account_id, msisdn) DO UPDATE SET uid = EXCLUDED.uid`,
      [data.subAccountId, data.msisdn, uid],
    );
    this.logger.info({ uid, subAccountId: data.subAccountId }, 'verification started');
    return viewOf(events.reduce(evolveVerification, initialVerificationState()) as Verification, now);
  }

  private async countSms(tx: SqlExecutor, data: StartVerificationData, now: Date): Promise<void> {
    await this.limits.check(tx, data, now);
    await this.limits.record(tx, data, now);
  }

  private async sessionOf(tx: SqlExecutor, subAccountId: string, msisdn: string): Promise<string | null> {
    const rows: { uid: string }[] = await tx.query(`SELECT uid FROM ${this.s}.destination_sessions WHERE sub_account_id = $1 AND msisdn = $2`, [
      subAccountId,
      msisdn,
    ]);
    return rows[0]?.uid ?? null;
  }
}
