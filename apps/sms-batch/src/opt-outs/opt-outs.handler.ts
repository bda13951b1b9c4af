import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { ApiErrorCode, type CommandReply } from '@seed/contracts';
import { ConcurrencyError, EventStore, ProcessedMessages, quoteSchema, type SqlExecutor } from '@seed/platform-event-store';
import type { CommandContext } from '@seed/platform-kafka';
import { LOGGER, ServiceSchema, SubscriptionRegistry } from '@seed/platform-nest';
import {
  optOutStreamId,
  type GetOptOutQuery,
  type ListOptOutsQuery,
  type OptInCommand,
  type OptOutCommand,
  type OptOutPage,
  type OptOutView,
} from '@seed/sms-batch-contracts';
import { decideOptOut, evolveOptOut, NO_OPT_OUT, type OptOutChange, type OptOutState } from '@seed/sms-batch-domain';

const CONSUMER = 'opt-outs';
const MAX_CONFLICT_RETRIES = 3;

/** What an opt-in answers. */
export type OptedIn = { subAccountId: string; msisdn: string; optedOut: false };

/**
 * Opt-outs of the admin API (and, through the same decider, of recipients' keywords). Each change
 * reads its recipient's stream, decides and appends at the version read with its processed-command
 * record, so a redelivered command gets its first answer. The gateway checked the sub-account's
 * account and normalised the MSISDN.
 */
@Controller()
export class OptOutsHandler {
  constructor(
    private readonly dataSource: DataSource,
    private readonly store: EventStore,
    private readonly processed: ProcessedMessages,
    private readonly subscriptions: SubscriptionRegistry,
    private readonly schema: ServiceSchema,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @MessagePattern('OptOut')
  optOut(@Payload() command: OptOutCommand, @Ctx() context: CommandContext): Promise<CommandReply<OptOutView>> {
    return this.change(command.commandId, context, { type: 'OptOut', ...command.data, at: new Date().toISOString() }, (state) => state.optedOut as OptOutView);
  }

  @MessagePattern('OptIn')
  optIn(@Payload() command: OptInCommand, @Ctx() context: CommandContext): Promise<CommandReply<OptedIn>> {
    const { subAccountId, msisdn } = command.data;
    return this.change(command.commandId, context, { type: 'OptIn', ...command.data, at: new Date().toISOString() }, () => ({ subAccountId, msisdn, optedOut: false }));
  }

  /** Read from the recipient's stream, so that an opt-out just answered is found at once. */
  @MessagePattern('GetOptOut')
  async getOptOut(@Payload() query: GetOptOutQuery): Promise<CommandReply<OptOutView>> {
    const { subAccountId, msisdn } = query.data;
    const state = (await this.store.readStream(this.dataSource.manager, optOutStreamId(subAccountId, msisdn))).reduce(evolveOptOut, NO_OPT_OUT);
    if (!state.optedOut) return { ok: false, failure: { status: 404, code: ApiErrorCode.NotFound, message: `${msisdn} has not opted out of ${subAccountId}` } };
    return { ok: true, result: state.optedOut };
  }

  /** From the read model: a change is listed once the follower has it (milliseconds later). */
  @MessagePattern('ListOptOuts')
  async listOptOuts(@Payload() query: ListOptOutsQuery): Promise<CommandReply<OptOutPage>> {
    const { subAccountId, after, limit } = query.data;
    const rows = (await this.dataSource.query(
      `SELECT msisdn, source, keyword, changed_at FROM ${quoteSchema(this.schema.name)}.opt_outs
        WHERE sub_account_id = $1 AND opted_out AND msisdn > $2 ORDER BY msisdn LIMIT $3`,
      [subAccountId, after ?? '', limit + 1],
    )) as { msisdn: string; source: OptOutView['source']; keyword: string | null; changed_at: Date }[];
    const page = rows.slice(0, limit).map((r): OptOutView => ({ subAccountId, msisdn: r.msisdn, source: r.source, keyword: r.keyword, optedOutAt: r.changed_at.toISOString() }));
    return { ok: true, result: { optOuts: page, next: rows.length > limit ? (page[page.length - 1]?.msisdn ?? null) : null } };
  }

  private async change<T>(commandId: string, context: CommandContext, change: OptOutChange, answer: (state: OptOutState) => T): Promise<CommandReply<T>> {
    for (let attempt = 1; ; attempt++) {
      try {
        const { result, types } = await this.dataSource.transaction((tx) => this.changeOnce(tx, commandId, context, change, answer));
        this.subscriptions.wakeFor(types);
        return { ok: true, result };
      } catch (error) {
        if (error instanceof ConcurrencyError && attempt < MAX_CONFLICT_RETRIES) continue;
        throw error;
      }
    }
  }

  private async changeOnce<T>(tx: SqlExecutor, commandId: string, context: CommandContext, change: OptOutChange, answer: (state: OptOutState) => T): Promise<{ result: T; types: string[] }> {
    const done = await this.processed.find<T>(tx, CONSUMER, commandId);
    if (done) return { result: done.result, types: [] };
    const streamId = optOutStreamId(change.subAccountId, change.msisdn);
    const stored = await this.store.readStream(tx, streamId);
    const state = stored.reduce(evolveOptOut, NO_OPT_OUT);
    const events = decideOptOut(change, state);
    const appended = await this.store.append(tx, [{ streamId, expectedVersion: stored.length, events }], {
      correlationId: context.correlationId,
      causationId: commandId,
      traceparent: context.traceparent,
      occurredAt: change.at,
    });
    const result = answer(appended.reduce(evolveOptOut, state));
    await this.processed.record(tx, CONSUMER, commandId, result);
    if (events.length > 0) this.logger.info({ subAccountId: change.subAccountId, change: change.type, source: change.source }, 'opt-out changed');
    return { result, types: events.map((e) => e.type) };
  }
}
