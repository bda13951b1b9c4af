import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { CommandMessage } from '@seed/contracts';
import { eventStoreSchema, runMigrations } from '@seed/platform-event-store';
import type { CommandContext } from '@seed/platform-kafka';
import { agentTokenService } from './agent-token.service';

/** The schema agent-token migrates at boot: event store, call_reference reservations, rooms read model. */
export async function migrateAgentTokenSchema(dataSource: DataSource, schema: string): Promise<void> {
  await runMigrations(dataSource, schema, [...eventStoreSchema, ...agentTokenService.migrations]);
}

export function commandOf<TData, TType extends string>(type: TType, data: TData): CommandMessage<TData, TType> & { type: TType } {
  return { commandId: randomUUID(), type, issuedAt: new Date().toISOString(), data };
}

export const contextOf = (command: CommandMessage): CommandContext => ({
  correlationId: `corr-${command.commandId}`,
  causationId: command.commandId,
  traceparent: null,
});
