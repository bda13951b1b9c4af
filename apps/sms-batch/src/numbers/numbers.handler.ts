import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { ApiErrorCode, type CommandMessage, type CommandReply } from '@seed/contracts';
import { CommandPipeline, EventStore } from '@seed/platform-event-store';
import type { CommandContext } from '@seed/platform-kafka';
import { LOGGER } from '@seed/platform-nest';
import { NUMBERS_STREAM, type GetNumberQuery, type ListNumbersQuery, type NumberView, type PutNumberCommand, type RemoveNumberCommand } from '@seed/sms-batch-contracts';
import { decideNumbers, evolveNumbers, NumbersError, type NumbersCommand, type NumbersState } from '@seed/sms-batch-domain';
import { readNumbers } from './read-numbers';

const CONSUMER = 'numbers';

/**
 * The admin API's numbers, each command in the command pipeline: the `numbers` stream read and
 * folded, decided, appended at the version read with the processed-command record. The gateway checked the sub-account's account and the webhook URL.
 */
@Controller()
export class NumbersHandler {
  constructor(
    private readonly dataSource: DataSource,
    private readonly store: EventStore,
    private readonly pipeline: CommandPipeline,
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

  /** The `numbers` stream read and folded, the command decided and appended, in the command pipeline; a refusal is its answer. */
  private async decide<T>(command: CommandMessage<unknown>, context: CommandContext, decided: NumbersCommand, answer: (state: NumbersState) => T): Promise<CommandReply<T>> {
    const now = new Date().toISOString();
    const metadata = { correlationId: context.correlationId, causationId: command.commandId, traceparent: context.traceparent, occurredAt: now };
    try {
      const result = await this.pipeline.run({ consumer: CONSUMER, commandId: command.commandId, metadata }, async (tx) => {
        const read = await readNumbers(tx, this.store);
        const events = decideNumbers(decided, read.state, now);
        if (events.length > 0) this.logger.info({ command: decided.type, version: read.version + events.length }, 'numbers changed');
        return { appends: [{ streamId: NUMBERS_STREAM, expectedVersion: read.version, events }], result: answer(events.reduce(evolveNumbers, read.state)) };
      });
      return { ok: true, result };
    } catch (error) {
      if (!(error instanceof NumbersError)) throw error;
      return { ok: false, failure: { status: error.code === 'unknown' ? 404 : 400, code: error.code === 'unknown' ? ApiErrorCode.NotFound : ApiErrorCode.InvalidParameter, message: error.message } };
    }
  }
}
