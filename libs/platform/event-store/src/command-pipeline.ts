import type { DataSource } from 'typeorm';
import type { AppendMetadata, AppendToStream, EventStore } from './event-store';
import { withCommandRetry, type DatabaseOutage, type RetryState } from './command-pipeline.retry-policy';
import type { ProcessedMessages } from './processed-messages';
import type { SqlExecutor } from './sql-executor';

// The policy is part of the pipeline's surface: exported with it.
/** What a decision appends and answers; streams without events are left out. */
export interface Decision<T> {
  appends: AppendToStream[];
  result: T;
  /**
   * The time the decision was taken on, when it is not the command's `occurredAt`: one that waited
   * for a lock decides on the time it got it, and its events must not look older than the ones
   * appended before it.
   */
  occurredAt?: string;
  /**
   * The time (this host's clock, ms) after which the decision must not be committed: its client
   * has been answered already (a gateway gave up waiting), and committing would do what it was
   * told failed. Checked just before the commit; past it, CommitDeadlinePassed rolls it back.
   */
  commitBy?: number;
}

/** Thrown when a decision's `commitBy` passed before its commit: nothing of it is written. */
export class CommitDeadlinePassed extends Error {
  override readonly name = 'CommitDeadlinePassed';
}

/**
 * A command as the pipeline runs it: who handles it and its id (null: no record, because the
 * decision is idempotent by itself or the handler keeps a record of its own in its statements).
 */
export interface PipelineCommand {
  consumer: string;
  commandId: string | null;
  metadata: AppendMetadata;
  /** While the database is unreachable (default `fail`: see DatabaseOutage). */
  outage?: DatabaseOutage;
  /**
   * `always` (the default), or `after-a-conflict`: a decision whose one append is all it writes
   * (no command record, no rows of its own) needs no transaction, the expected-version append
   * being atomic by itself; it is tried first without one (no BEGIN and COMMIT round trips), and
   * in a transaction once another writer came first, where the deciding function may lock what it
   * reads so that writers of one stream queue instead of conflicting again.
   */
  transaction?: 'always' | 'after-a-conflict';
}

/**
 * The deciding function: reads and folds what it needs inside the transaction it is given, and
 * decides. `retry` tells a decision taken again after another writer came first (one that keeps
 * state between transactions drops what that writer made stale).
 */
export type Decide<T> = (tx: SqlExecutor, retry: RetryState) => Promise<Decision<T>>;

/**
 * Read -> fold -> decide -> append, in one transaction with the command's processed record, again
 * when another writer appended to a stream first (ConcurrencyError: the streams are read afresh),
 * under the one COMMAND_RETRY_POLICY. A redelivered command gets its first answer without deciding
 * again. What it appended wakes the followers of those event types. A refusal the deciding
 * function throws rolls everything back.
 */
export class CommandPipeline {
  constructor(
    private readonly dataSource: DataSource,
    private readonly store: EventStore,
    private readonly processed: ProcessedMessages,
    private readonly wake: (types: readonly string[]) => void,
  ) {}

  async run<T>(command: PipelineCommand, decide: Decide<T>): Promise<T> {
    if (command.transaction === 'after-a-conflict' && command.commandId !== null) throw new Error('a command with a record runs in a transaction');
    const { result, types } = await withCommandRetry(command.outage ?? 'fail', (retry) =>
      command.transaction === 'after-a-conflict' && retry.conflicts === 0
        ? this.once(this.dataSource.manager, command, decide, retry, false)
        : this.dataSource.transaction((tx) => this.once(tx, command, decide, retry, true)),
    );
    if (types.length > 0) this.wake(types);
    return result;
  }

  private async once<T>(tx: SqlExecutor, command: PipelineCommand, decide: Decide<T>, retry: RetryState, transactional: boolean): Promise<{ result: T; types: string[] }> {
    const { consumer, commandId, metadata } = command;
    if (commandId !== null) {
      const done = await this.processed.find<T>(tx, consumer, commandId);
      if (done) return { result: done.result, types: [] };
    }
    const { appends, result, occurredAt, commitBy } = await decide(tx, retry);
    const written = appends.filter((a) => a.events.length > 0);
    // Outside a transaction the append commits at once: the deadline is looked at before it.
    if (!transactional) pastCommitBy(commitBy);
    if (written.length > 0) await this.store.append(tx, written, occurredAt === undefined ? metadata : { ...metadata, occurredAt });
    if (commandId !== null) await this.processed.record(tx, consumer, commandId, result);
    // Deciding and appending a large batch takes a while: in a transaction the deadline is looked at last.
    if (transactional) pastCommitBy(commitBy);
    return { result, types: [...new Set(written.flatMap((a) => a.events.map((e) => e.type)))] };
  }
}

/** Throws CommitDeadlinePassed when `commitBy` has passed (NaN counts as past). */
function pastCommitBy(commitBy: number | undefined): void {
  if (commitBy !== undefined && !(Date.now() <= commitBy)) throw new CommitDeadlinePassed('the decision is past its commit deadline: not committed');
}
