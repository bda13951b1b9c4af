import type { Logger } from 'pino';
import type { SqlExecutor } from '@seed/platform-event-store';
import { fencedOff as fencedOffRows } from '@seed/platform-work-queue';
import type { LifecycleItem } from './lifecycle-item';
import { outboundQueueMetrics, outboundQueueTable } from './outbound-queue.table';

/**
 * Results of claims that are no longer the row's: the lease ran out and another sender claimed
 * the message again (this replica was paused, or cut off from the database). Their row is locked
 * here, so no claim can take it until this transaction ends; a row that is gone was recorded
 * already, and the decider treats the result as the repeat it is.
 */
export async function fencedOff(tx: SqlExecutor, s: string, items: LifecycleItem[], logger: Logger): Promise<Set<LifecycleItem>> {
  const held = items.filter((i): i is Extract<LifecycleItem, { umid: string }> => 'umid' in i && i.leaseToken !== undefined);
  if (held.length === 0) return new Set();
  const staleUmids = await fencedOffRows(tx, outboundQueueTable(s), held.map((i) => ({ id: i.umid, leaseToken: i.leaseToken as string })));
  const stale = held.filter((i) => staleUmids.has(i.umid));
  outboundQueueMetrics.fencedOff(stale.length);
  if (stale.length > 0) {
    logger.warn(
      { umids: stale.map((i) => i.umid), commands: stale.map((i) => i.command.type) },
      'results of claims whose lease ran out are not recorded: another sender holds these messages now',
    );
  }
  return new Set(stale);
}
