import type { DataSource } from 'typeorm';
import { ConcurrencyError, type AppendMetadata, type AppendToStream, type EventStore } from './event-store';
import type { ProcessedMessages } from './processed-messages';
import type { SqlExecutor } from './sql-executor';

/** What a decision appends and answers; streams without events are left out. */
export interface Decision<T> {
  appends: AppendToStream[];
  result: T;
}

/** A command as the pipeline runs it: who handles it and its id (null: no record, the decision is idempotent by itself). */
export interface PipelineCommand {
  consumer: string;
  commandId: string | null;
  metadata: AppendMetadata;
  /** Attempts when other writers keep coming first (default: the pipeline's, 3). */
  attempts?: number;
}

/**
 * Read -> fold -> decide -> append, in one transaction with the command's processed record, again
 * when another writer appended to a stream first (ConcurrencyError: the streams are read afresh).
 * A redelivered command gets its first answer without deciding again. What it appended wakes the
 * followers of those event types. The deciding function reads and folds what it needs inside the
 * transaction it is given; a refusal it throws rolls everything back.
 */
export class CommandPipeline {
  constructor(
    private readonly dataSource: DataSource,
    private readonly store: EventStore,
    private readonly processed: ProcessedMessages,
    private readonly wake: (types: readonly string[]) => void,
    private readonly maxConflictRetries = 3,
  ) {}

  async run<T>(command: PipelineCommand, decide: (tx: SqlExecutor) => Promise<Decision<T>>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        const { result, types } = await this.dataSource.transaction((tx) => this.once(tx, command, decide));
        if (types.length > 0) this.wake(types);
        return result;
      } catch (error) {
        if (error instanceof ConcurrencyError && attempt < (command.attempts ?? this.maxConflictRetries)) continue;
        throw error;
      }
    }
  }

  private async once<T>(tx: SqlExecutor, command: PipelineCommand, decide: (tx: SqlExecutor) => Promise<Decision<T>>): Promise<{ result: T; types: string[] }> {
    const { consumer, commandId, metadata } = command;
    if (commandId !== null) {
      const done = await this.processed.find<T>(tx, consumer, commandId);
      if (done) return { result: done.result, types: [] };
    }
    const { appends, result } = await decide(tx);
    const written = appends.filter((a) => a.events.length > 0);
    if (written.length > 0) await this.store.append(tx, written, metadata);
    if (commandId !== null) await this.processed.record(tx, consumer, commandId, result);
    return { result, types: [...new Set(written.flatMap((a) => a.events.map((e) => e.type)))] };
  }
}
