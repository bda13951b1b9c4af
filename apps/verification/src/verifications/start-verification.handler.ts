import { v7 as uuidv7 } from 'uuid';
import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import type { CommandReply } from '@seed/contracts';
import { allInOne, CommandPipeline, commitDeadline, lockKeys, lockSlot, ProcessedMessages, quoteSchema, StatementParams, type AppendMetadata, type Decision, type SqlExecutor } from '@seed/platform-event-store';
import type { CommandContext } from '@seed/platform-kafka';
import { LOGGER, ServiceSchema } from '@seed/platform-nest';
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
import { AbuseLimits, type BlockingSends } from '../limits/abuse-limits';
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
  private readonly schemaName: string;

  constructor(
    private readonly dataSource: DataSource,
    private readonly verifications: VerificationStore,
    private readonly processed: ProcessedMessages,
    private readonly pipeline: CommandPipeline,
    private readonly secrets: CodeSecrets,
    private readonly limits: AbuseLimits,
    schema: ServiceSchema,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(MAX_COMMAND_AGE_MS) private readonly maxCommandAgeMs: number,
  ) {
    this.s = quoteSchema(schema.name);
    this.schemaName = schema.name;
  }

  @MessagePattern('StartVerification')
  async start(@Payload() command: StartVerificationCommand, @Ctx() context: CommandContext): Promise<CommandReply<VerificationView>> {
    const stale = staleCommandReply(command.issuedAt, this.maxCommandAgeMs);
    if (stale) {
      this.logger.warn({ commandId: command.commandId, issuedAt: command.issuedAt }, 'generation request too old: not started');
      return stale;
    }
    const metadata: AppendMetadata = { correlationId: context.correlationId, causationId: command.commandId, traceparent: context.traceparent, occurredAt: new Date().toISOString() };
    // The command's record is kept by the handler, in the statements it reads and writes its rows
    // with (one round trip each), rather than in two of the pipeline's own.
    return replyOf(() => this.pipeline.run({ consumer: CONSUMER, commandId: null, metadata }, async (tx) => ({ ...(await this.decide(tx, command)), commitBy: commitDeadline(command.issuedAt, this.maxCommandAgeMs) })));
  }

  /**
   * Decides the generation: what to append and the answer. Under the number's lock, one statement
   * reads everything the decision needs (the command's idempotency record, the number's latest
   * verification, both abuse windows) and one writes the rows besides the events (the SMS count,
   * the number's latest verification, the idempotency record): a generation's transaction is six
   * round trips, not eleven.
   */
  private async decide(tx: SqlExecutor, command: StartVerificationCommand): Promise<Decision<VerificationView>> {
    const { data } = command;
    // Per account and number, not per sub-account: the number's abuse count is the account's.
    await lockKeys(tx, this.schemaName, [lockSlot('destination', `${data.accountId}:${data.msisdn}`)]);
    const now = new Date();
    // Read under the lock: a copy of this command still being decided elsewhere (redelivered during
    // a rebalance) has committed by now, and its answer is this one's, not a 429.
    const known = await this.lookUp(tx, command, now);
    if (known.done !== null) return { appends: [], result: known.done };

    if (known.previous_uid !== null) {
      await this.verifications.lock(tx, known.previous_uid);
      const { state, version } = await this.verifications.load(tx, known.previous_uid);
      if (isActive(state, now)) {
        const events = decideVerification({ type: data.resetSession === true ? 'Reset' : 'Resend', now }, state);
        if (data.resetSession !== true) {
          // A resend within the interval is refused (the decider throws) before the limits are looked at.
          this.limits.verdict(known, now);
          const view = viewOf(events.reduce(evolveVerification, state) as Verification, now);
          await this.write(tx, (p) => [this.limits.recordStatement(p, data, now), this.processed.recordStatement(p, CONSUMER, command.commandId, view)]);
          this.logger.info({ uid: known.previous_uid }, 'verification code resent');
          return { appends: [this.verifications.appendOf(known.previous_uid, version, events)], result: view, occurredAt: now.toISOString() };
        }
        // A reset ends it and starts a new one below, counted like any first SMS.
        this.limits.verdict(known, now);
        const started = await this.startNew(tx, command, now);
        return { ...started, appends: [this.verifications.appendOf(known.previous_uid, version, events), ...started.appends] };
      }
    }

    this.limits.verdict(known, now);
    return this.startNew(tx, command, now);
  }

  /** The command's earlier answer, the number's latest verification and the abuse windows, in one statement. */
  private async lookUp(tx: SqlExecutor, command: StartVerificationCommand, now: Date): Promise<{ done: VerificationView | null; previous_uid: string | null } & BlockingSends> {
    const { data } = command;
    const p = new StatementParams();
    const sql = `SELECT ${this.processed.findColumn(p, CONSUMER, command.commandId)} AS done,
                        (SELECT uid FROM ${this.s}.destination_sessions WHERE sub_account_id = ${p.add(data.subAccountId)} AND msisdn = ${p.add(data.msisdn)}) AS previous_uid,
                        ${this.limits.blockingColumns(p, data, now)}`;
    const [row] = await tx.query(sql, p.values);
    return row;
  }

  /** The generation's rows besides its events, in one statement. */
  private async write(tx: SqlExecutor, statements: (p: StatementParams) => string[]): Promise<void> {
    const p = new StatementParams();
    await tx.query(allInOne(statements(p)), p.values);
  }

  private async startNew(tx: SqlExecutor, command: StartVerificationCommand, now: Date): Promise<Decision<VerificationView>> {
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
    await this.write(tx, (p) => [
      this.limits.recordStatement(p, data, now),
      `INSERT INTO ${this.s}.destination_sessions (sub_account_id, msisdn, uid) VALUES (${p.add(data.subAccountId)}, ${p.add(data.msisdn)}, ${p.add(uid)})
       ON CONFLICT (sub_account_id, msisdn) DO UPDATE SET uid = EXCLUDED.uid`,
      this.processed.recordStatement(p, CONSUMER, command.commandId, view),
    ]);
    this.logger.info({ uid, subAccountId: data.subAccountId }, 'verification started');
    return { appends: [this.verifications.appendOf(uid, 0, events)], result: view, occurredAt: now.toISOString() };
  }
}
