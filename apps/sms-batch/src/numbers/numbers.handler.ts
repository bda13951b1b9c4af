import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { ApiErrorCode, type CommandMessage, type CommandReply } from '@seed/contracts';
import { ConcurrencyError, EventStore, ProcessedMessages, type SqlExecutor } from '@seed/platform-event-store';
import type { CommandContext } from '@seed/platform-kafka';
import { LOGGER, SubscriptionRegistry } from '@seed/platform-nest';
import { NUMBERS_STREAM, type GetNumberQuery, type ListNumbersQuery, type NumberView, type PutNumberCommand, type RemoveNumberCommand } from '@seed/sms-batch-contracts';
import { decideNumbers, evolveNumbers, NumbersError, type NumbersCommand, type NumbersState } from '@seed/sms-batch-domain';
import { readNumbers } from './read-numbers';

const CONSUMER = 'numbers';
const MAX_CONFLICT_RETRIES = 3;

/**
 * The admin API's numbers: read the `numbers` stream, decide, append at the version read with the
 * processed-command record (again on a concurrent append), so a redelivered command gets its
 * first answer. The gateway checked the sub-account's account and the webhook URL.
 */
@Controller()
export class NumbersHandler {
  constructor(
    private readonly dataSource: DataSource,
    private readonly store: EventStore,
    private readonly processed: ProcessedMessages,
    private readonly subscriptions: SubscriptionRegistry,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @MessagePattern('PutNumber')
  putNumber(@Payload() command: PutNumberCommand, @Ctx() context: CommandContext): Promise<CommandReply<NumberView>> {
    const { number, assignment } = command.data;
    return this.decide(command, context, { type: 'PutNumber', number, assignment }, (state) => state.numbers.get(number) as NumberView);
  }

  @MessagePattern('RemoveNumber')
  removeNumber(@Payload() command: RemoveNumberCommand, @Ctx() context: CommandContext): Promise<CommandReply<{ number: string }>> {
    const { number } = command.data;
    return this.decide(command, context, { type: 'RemoveNumber', number }, () => ({ number }));
  }

  @MessagePattern('GetNumber')
  async getNumber(@Payload() query: GetNumberQuery): Promise<CommandReply<NumberView>> {
    const found = (await readNumbers(this.dataSource.manager, this.store)).state.numbers.get(query.data.number);
    return found ? { ok: true, result: found } : { ok: false, failure: { status: 404, code: ApiErrorCode.NotFound, message: `no number ${query.data.number}` } };
  }

  @MessagePattern('ListNumbers')
  async listNumbers(@Payload() query: ListNumbersQuery): Promise<CommandReply<{ numbers: NumberView[] }>> {
    const { state } = await readNumbers(this.dataSource.manager, this.store);
    const numbers = [...state.numbers.values()].filter((n) => query.data.subAccountId === null || n.subAccountId === query.data.subAccountId).sort((a, b) => a.number.localeCompare(b.number));
    return { ok: true, result: { numbers } };
  }

  private async decide<T>(command: CommandMessage<unknown>, context: CommandContext, decided: NumbersCommand, answer: (state: NumbersState) => T): Promise<CommandReply<T>> {
    for (let attempt = 1; ; attempt++) {
      try {
        const { result, types } = await this.dataSource.transaction((tx) => this.decideOnce(tx, command, context, decided, answer));
        this.subscriptions.wakeFor(types);
        return { ok: true, result };
      } catch (error) {
        if (error instanceof ConcurrencyError && attempt < MAX_CONFLICT_RETRIES) continue;
        if (error instanceof NumbersError) {
          const status = error.code === 'unknown' ? 404 : 400;
          return { ok: false, failure: { status, code: error.code === 'unknown' ? ApiErrorCode.NotFound : ApiErrorCode.InvalidParameter, message: error.message } };
        }
        throw error;
      }
    }
  }

  private async decideOnce<T>(tx: SqlExecutor, command: CommandMessage<unknown>, context: CommandContext, decided: NumbersCommand, answer: (state: NumbersState) => T): Promise<{ result: T; types: string[] }> {
    const done = await this.processed.find<T>(tx, CONSUMER, command.commandId);
    if (done) return { result: done.result, types: [] };
    const read = await readNumbers(tx, this.store);
    const now = new Date().toISOString();
    const events = decideNumbers(decided, read.state, now);
    const appended = await this.store.append(tx, [{ streamId: NUMBERS_STREAM, expectedVersion: read.version, events }], {
      correlationId: context.correlationId,
      causationId: command.commandId,
      traceparent: context.traceparent,
      occurredAt: now,
    });
    const result = answer(appended.reduce(evolveNumbers, read.state));
    await this.processed.record(tx, CONSUMER, command.commandId, result);
    if (events.length > 0) this.logger.info({ command: decided.type, version: read.version + events.length }, 'numbers changed');
    return { result, types: events.map((e) => e.type) };
  }
}
