import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { CommandPipeline, eventStoreSchema, ProcessedMessages, runMigrations, type EventStore } from '@seed/platform-event-store';
import { SubscriptionRegistry } from '@seed/platform-nest';
import type { SmsBatchItem, SubmitBatchData } from '@seed/sms-batch-contracts';
import { smsBatchService } from './sms-batch.service';

/** The schema sms-batch migrates at boot: event store, read models, clientBatchId reservations. */
export async function migrateSmsBatchSchema(dataSource: DataSource, schema: string): Promise<void> {
  await runMigrations(dataSource, schema, [...eventStoreSchema, ...smsBatchService.migrations]);
}

/** The command pipeline as the service builds it (PlatformModule), for handlers tested on their own. */
export function pipelineOf(dataSource: DataSource, store: EventStore, schema: string, logger: Logger): CommandPipeline {
  const subscriptions = new SubscriptionRegistry(dataSource, store, logger);
  return new CommandPipeline(dataSource, store, new ProcessedMessages(schema), (types) => subscriptions.wakeFor(types));
}

/** A batch with queued and rejected messages of every kind the read models keep apart. */
export function mixedBatch(subAccountId: string, extra: Partial<SubmitBatchData> = {}): SubmitBatchData {
  const messages: SmsBatchItem[] = [
    { destination: '+44 7400 123456', clientMessageId: 'm-1' },
    { destination: '+4915123456789', text: 'Grüße, 你好', encoding: 'UCS2', dlrCallbackUrl: 'https://example.test/dlr' },
    { destination: '+33612345678', scheduled: '2099-01-01T00:00:00Z', expiry: '2099-01-02T00:00:00.000Z' },
    { destination: 'not a number', clientMessageId: 'm-4' },
    { destination: '+447400123457', text: '' },
  ];
  return {
    accountId: 'acme',
    subAccountId,
    includeMessagesInResponse: true,
    template: { text: 'Hello from the integration test', source: 'Seed' },
    messages,
    ...extra,
  };
}

export interface RunningSimulator {
  process: ChildProcess;
  smppPort: number;
  httpPort: number;
}

/** The SMSC simulator as the stack runs it (from dist/, built before this tier), on ports of its choosing. */
export async function startSimulator(): Promise<RunningSimulator> {
  const child = spawn(process.execPath, [join(__dirname, '../../../dist/tools/smsc-simulator/src/main.js')], {
    env: { ...process.env, SMSC_HOST: '127.0.0.1', SMSC_PORT: '0', SMSC_HTTP_PORT: '0', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.once('exit', (code) => reject(new Error(`the simulator exited (${code}): ${output}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /"smppPort":(\d+),"httpPort":(\d+)/.exec(output);
      if (ready) resolve({ process: child, smppPort: Number(ready[1]), httpPort: Number(ready[2]) });
    });
  });
}
