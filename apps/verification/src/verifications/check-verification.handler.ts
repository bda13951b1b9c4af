import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { DataSource } from 'typeorm';
import type { CommandReply } from '@seed/contracts';
import { CommandPipeline, commitDeadline, type Decision, type SqlExecutor } from '@seed/platform-event-store';
import type { CommandContext } from '@seed/platform-kafka';
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
    private readonly pipeline: CommandPipeline,
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
    const metadata = { correlationId: context.correlationId, causationId: command.commandId, traceparent: context.traceparent, occurredAt: new Date().toISOString() };
    // Most validations of a uid come one at a time: read, decide, append at the version read, each
    // a statement of its own (two round trips, no transaction). Another writer in between makes the
    // append fail, and the check is decided again in a transaction under the stream's lock, where
    // parallel validations queue instead of conflicting again and again.
    return replyOf(() =>
      this.pipeline.run({ consumer: 'check-verification', commandId: null, metadata, transaction: 'after-a-conflict' }, async (db, retry) => {
        if (retry.conflicts > 0) await this.verifications.lock(db, data.uid);
        return { ...(await this.decide(db, command)), commitBy: commitDeadline(command.issuedAt, this.maxCommandAgeMs) };
      }),
    );
  }

  /** Decides the check on the stream as read: what to append at the version read, and the verification after it. */
  private async decide(db: SqlExecutor, command: CheckVerificationCommand): Promise<Decision<VerificationView>> {
    const { data } = command;
    const code = data.code;
    if (code === undefined) throw new Error('a check without a code is a read');
    const now = new Date();
    const loaded = await this.verifications.load(db, data.uid);
    const state = ownedBy(data, loaded.state);
    // A redelivered command (its events are the stream's, caused by its id) is not decided again.
    if (loaded.causes.has(command.commandId)) return { appends: [], result: viewOf(state, now) };
    const events = decideVerification({ type: 'CheckCode', codeLength: code.length, matches: this.secrets.matches(state.started, code), now }, state);
    return {
      appends: [this.verifications.appendOf(data.uid, loaded.version, events)],
      result: viewOf(events.reduce(evolveVerification, state as VerificationState) as Verification, now),
      occurredAt: now.toISOString(),
    };
  }
}

/** Another account's or sub-account's verification is answered like an unknown one. */
function ownedBy(data: CheckVerificationData, state: VerificationState): Verification {
  if (state.status === 'NEW' || state.subAccountId !== data.subAccountId || state.accountId !== data.accountId) {
    throw new VerificationError('not-found', 'no such verification in this sub-account');
  }
  return state;
}
