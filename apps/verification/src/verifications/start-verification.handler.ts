import { v7 as uuidv7 } from 'uuid';
import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import type { CommandReply } from '@seed/contracts';
import { ProcessedMessages, quoteSchema, type AppendMetadata, type SqlExecutor } from '@seed/platform-event-store';
import type { CommandContext } from '@seed/platform-kafka';
import { LOGGER, ServiceSchema, SubscriptionRegistry } from '@seed/platform-nest';
import type { StartVerificationCommand, VerificationView } from '@seed/verification-contracts';
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

  /**
   * Decides the generation; the types of the events it appends go into `appended` (who to wake).
   * What it reads goes in one round trip behind the lock (the connection is pipelined; each
   * statement runs after the one before it, so the reads see what the lock's previous holder
   * committed), and so does what it writes: three round trips for a new verification.
   */
  private async decide(tx: SqlExecutor, command: StartVerificationCommand, context: CommandContext, appended: string[]): Promise<VerificationView> {
    const { data } = command;
    const now = new Date();
    const [, done, previousUid, refusal] = await Promise.all([
      // Per account and number, not per sub-account: the number's abuse count is the account's.
      tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${this.s}:destination:${data.accountId}:${data.msisdn}`]),
      // Looked up under the lock: a copy of this command still being decided elsewhere (redelivered
      // during a rebalance) has committed by now, and its answer is this one's, not a 429.
      this.processed.find<VerificationView>(tx, CONSUMER, command.commandId),
      this.sessionOf(tx, data.subAccountId, data.msisdn),
      this.limits.refusalOf(tx, data, now),
    ]);
    if (done) return done.result;
    const metadata: AppendMetadata = { correlationId: context.correlationId, causationId: command.commandId, traceparent: context.traceparent, occurredAt: now.toISOString() };

    if (previousUid !== null) {
      const [, { state, version }] = await Promise.all([this.verifications.lock(tx, previousUid), this.verifications.load(tx, previousUid)]);
      if (isActive(state, now)) {
        const events = decideVerification({ type: data.resetSession === true ? 'Reset' : 'Resend', now }, state);
        if (data.resetSession !== true) {
          if (refusal) throw refusal;
          const view = viewOf(events.reduce(evolveVerification, state) as Verification, now);
          await Promise.all([
            this.verifications.append(tx, previousUid, version, events, metadata),
            this.limits.record(tx, data, now),
            this.processed.record(tx, CONSUMER, command.commandId, view),
          ]);
          appended.push(...events.map((e) => e.type));
          this.logger.info({ uid: previousUid }, 'verification code resent');
          return view;
        }
        if (refusal) throw refusal;
        await this.verifications.append(tx, previousUid, version, events, metadata);
        appended.push(...events.map((e) => e.type));
      }
    }

    if (refusal) throw refusal;
    return this.startNew(tx, command, now, metadata, appended);
  }

  private async startNew(tx: SqlExecutor, command: StartVerificationCommand, now: Date, metadata: AppendMetadata, appended: string[]): Promise<VerificationView> {
    const { data } = command;
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
    const view = viewOf(events.reduce(evolveVerification, initialVerificationState()) as Verification, now);
    await Promise.all([
      this.limits.record(tx, data, now),
      this.verifications.append(tx, uid, 0, events, metadata),
      tx.query(
        `INSERT INTO ${this.s}.destination_sessions (sub_account_id, msisdn, uid) VALUES ($1, $2, $3)
         ON CONFLICT (sub_account_id, msisdn) DO UPDATE SET uid = EXCLUDED.uid`,
        [data.subAccountId, data.msisdn, uid],
      ),
      this.processed.record(tx, CONSUMER, command.commandId, view),
    ]);
    appended.push(...events.map((e) => e.type));
    this.logger.info({ uid, subAccountId: data.subAccountId }, 'verification started');
    return view;
  }

  private async sessionOf(tx: SqlExecutor, subAccountId: string, msisdn: string): Promise<string | null> {
    const rows: { uid: string }[] = await tx.query(`SELECT uid FROM ${this.s}.destination_sessions WHERE sub_account_id = $1 AND msisdn = $2`, [
      subAccountId,
      msisdn,
    ]);
    return rows[0]?.uid ?? null;
  }
}
