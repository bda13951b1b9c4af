import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { ApiErrorCode, type CommandReply } from '@seed/contracts';
import { CommandPipeline, EventStore, quoteSchema } from '@seed/platform-event-store';
import type { CommandContext } from '@seed/platform-kafka';
import { LOGGER, ServiceSchema } from '@seed/platform-nest';
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

/** What an opt-in answers. */
export type OptedIn = { subAccountId: string; msisdn: string; optedOut: false };

/**
 * Opt-outs of the admin API (and, through the same decider, of recipients' keywords). Each change
 * runs in the command pipeline: its recipient's stream read and folded, decided, appended at the
 * version read with the processed-command record (a redelivered command gets its first answer). The gateway checked the sub-account's
 * account and normalised the MSISDN.
 */
@Controller()
export class OptOutsHandler {
  constructor(
    private readonly dataSource: DataSource,
    private readonly store: EventStore,
    private readonly pipeline: CommandPipeline,
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

  /** The recipient's stream read and folded, the change decided and appended, in the command pipeline. */
  private async change<T>(commandId: string, context: CommandContext, change: OptOutChange, answer: (state: OptOutState) => T): Promise<CommandReply<T>> {
    const streamId = optOutStreamId(change.subAccountId, change.msisdn);
    const metadata = { correlationId: context.correlationId, causationId: commandId, traceparent: context.traceparent, occurredAt: change.at };
    const result = await this.pipeline.run({ consumer: CONSUMER, commandId, metadata }, async (tx) => {
      const stored = await this.store.readStream(tx, streamId);
      const state = stored.reduce(evolveOptOut, NO_OPT_OUT);
      const events = decideOptOut(change, state);
      if (events.length > 0) this.logger.info({ subAccountId: change.subAccountId, change: change.type, source: change.source }, 'opt-out changed');
      return { appends: [{ streamId, expectedVersion: stored.length, events }], result: answer(events.reduce(evolveOptOut, state)) };
    });
    return { ok: true, result };
  }
}
