import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { CommandFailure, CommandMessage } from '@seed/contracts';
import { currentCorrelation } from '@seed/platform-logging';
import { CommandBus } from '@seed/platform-kafka';
import { ApiError } from '../http/api-error';

/**
 * Sends a command to the service that owns it and turns the reply into a result or an ApiError.
 * The gateway decides nothing itself: this is the only way its controllers change state.
 */
@Injectable()
export class CommandClient {
  constructor(private readonly bus: CommandBus) {}

  async send<TResult, TData>(topic: string, key: string, type: string, data: TData): Promise<TResult> {
    const command: CommandMessage<TData> = { commandId: randomUUID(), type, issuedAt: new Date().toISOString(), data };
    const context = currentCorrelation();
    const reply = await this.bus.request<TResult>(topic, key, command, context?.correlationId ?? command.commandId, context?.traceparent ?? null);
    if (reply.ok) return reply.result;
    throw toApiError(reply.failure);
  }
}

function toApiError(failure: CommandFailure): ApiError {
  return new ApiError(failure.status, failure.code, failure.message, failure.retryAfterSeconds);
}
