import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { DataSource } from 'typeorm';
import type { CommandReply } from '@seed/contracts';
import { ConcurrencyError, type SqlExecutor } from '@seed/platform-event-store';
import type { CommandContext } from '@seed/platform-kafka';
import { SubscriptionRegistry } from '@seed/platform-nest';
import type { CheckVerificationCommand, CheckVerificationData, VerificationView } from '@seed/verification-contracts';
import { decideVerification, evolveVerification, VerificationError, viewOf, type Verification, type VerificationState } from '@seed/verification-domain';
import { CodeSecrets } from './code-secrets';
import { MAX_COMMAND_AGE_MS, replyOf, staleCommandReply } from './command-failures';
import { VerificationStore } from './verification-store';

/**
 * `GET /verify/v2/{subAccountId}/{uid}[?code=]`. Without a code it only reads the stream (nothing is
 * written, expiry is computed). With a code it decides on the stream as read and appends at the
 * version read; when another writer came first, it decides again under the stream's lock, so
 * parallel validations of one uid are decided one after the other: no attempt is counted twice and
 * nothing is verified after FAILED. A redelivered command is recognised by its id in the stream (the
 * causation of the events it decided) and answered with the verification as it stands. A
 * validation older than the gateway's wait is not decided (503).
 */
@Controller()
export class CheckVerificationHandler {
  constructor(
    private readonly dataSource: DataSource,
    private readonly verifications: VerificationStore,
    private readonly subscriptions: SubscriptionRegistry,
    private readonly secrets: CodeSecrets,
    @Inject(MAX_COMMAND_AGE_MS) private readonly maxCommandAgeMs: number,
  ) {}

  @MessagePattern('CheckVerification')
  async check(@Payload() command: CheckVerificationCommand, @Ctx() context: CommandContext): Promise<CommandReply<VerificationView>> {
    const { data } = command;
    if (data.code === undefined) {
      return replyOf(async () => viewOf(ownedBy(data, (await this.verifications.load(this.dataSource.manager, data.uid)).state), new Date()));
    }
    // Like a stale generation: its client had a 503, so the code it presented is not counted.
    const stale = staleCommandReply(command.issuedAt, this.maxCommandAgeMs);
    if (stale) return stale;
    const appended: string[] = [];
    const reply = await replyOf(async () => {
      try {
        // Most validations of a uid come one at a time: read, decide, append at the version read,
        // each a statement of its own (two round trips). Another writer in between makes the
        // append fail, and the check is decided again under the stream's lock (five), where
        // parallel validations queue instead of conflicting again and again.
        return await this.decide(this.dataSource.manager, command, context, appended);
      } catch (error) {
        // Nothing was appended (appended is filled after an append succeeds).
        if (!(error instanceof ConcurrencyError)) throw error;
        return this.dataSource.transaction(async (tx) => {
          await this.verifications.lock(tx, data.uid);
          return this.decide(tx, command, context, appended);
        });
      }
    });
    if (reply.ok) this.subscriptions.wakeFor(appended);
    return reply;
  }

  /**
   * Decides the check on the stream as read, appending at the version read (a ConcurrencyError
   * when another writer came first); the types of the events it appends go into `appended` (who
   * to wake).
   */
  private async decide(db: SqlExecutor, command: CheckVerificationCommand, context: CommandContext, appended: string[]): Promise<VerificationView> {
    const { data } = command;
    const code = data.code;
    if (code === undefined) throw new Error('a check without a code is a read');
    const now = new Date();
    const loaded = await this.verifications.load(db, data.uid);
    const state = ownedBy(data, loaded.state);
    // A redelivered command (its events are the stream's, caused by its id) is not decided again.
    if (loaded.causes.has(command.commandId)) return viewOf(state, now);
    const events = decideVerification({ type: 'CheckCode', codeLength: code.length, matches: this.secrets.matches(state.started, code), now }, state);
    await this.verifications.append(db, data.uid, loaded.version, events, {
      correlationId: context.correlationId,
      causationId: command.commandId,
      traceparent: context.traceparent,
      occurredAt: now.toISOString(),
    });
    appended.push(...events.map((e) => e.type));
    return viewOf(events.reduce(evolveVerification, state as VerificationState) as Verification, now);
  }
}

/** Another account's or sub-account's verification is answered like an unknown one. */
function ownedBy(data: CheckVerificationData, state: VerificationState): Verification {
  if (state.status === 'NEW' || state.subAccountId !== data.subAccountId || state.accountId !== data.accountId) {
    throw new VerificationError('not-found', 'no such verification in this sub-account');
  }
  return state;
}
