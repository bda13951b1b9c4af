import type { DataSource } from 'typeorm';
import { quoteSchema } from '@seed/platform-event-store';
import { boundedQuery } from './bounded-query';
import { SampledGauge, type Reading } from './sampled-gauge';
import { ScrapeSample } from './scrape-sample';

const eventsBehind = new SampledGauge({
  name: 'event_follower_lag_events',
  help: "Log positions between a follower's checkpoint and the head of its service's log (about the events it has still to read)",
  labelNames: ['follower'] as const,
});
const secondsBehind = new SampledGauge({
  name: 'event_follower_lag_seconds',
  help: 'Age of the oldest event a follower has still to read (0 when it has read everything)',
  labelNames: ['follower'] as const,
});

interface LagRow {
  follower: string;
  events_behind: number;
  seconds_behind: number;
}

/**
 * How far each follower of the service's log (projections, the outbox relay, reactors) is behind
 * its head, read from the checkpoints, whichever replica or thread runs the follower: every
 * checkpoint of the schema, and the followers registered here that have none yet (they are behind
 * by the whole log). Per follower, two index probes: the head is the end of the primary key, and
 * the oldest unread event the first entry after the checkpoint in the index followers read by.
 * Positions can have gaps (a rolled-back append takes some), so `events` is an upper bound.
 */
export function followerLagSql(schema: string): string {
  const s = quoteSchema(schema);
  return `
    WITH head AS (SELECT coalesce(max(global_position), 0) AS position FROM ${s}.events),
    followers AS (
      SELECT subscription, transaction_id, global_position FROM ${s}.subscription_checkpoints
      UNION ALL
      SELECT name, '0'::xid8, 0 FROM unnest($1::text[]) AS name
       WHERE name NOT IN (SELECT subscription FROM ${s}.subscription_checkpoints))
    SELECT f.subscription AS follower,
           greatest(head.position - f.global_position, 0)::float8 AS events_behind,
           coalesce(greatest(extract(epoch FROM now() - unread.occurred_at), 0), 0)::float8 AS seconds_behind
      FROM followers f CROSS JOIN head
      LEFT JOIN LATERAL (
        SELECT e.occurred_at FROM ${s}.events e
         WHERE (e.transaction_id, e.global_position) > (f.transaction_id, f.global_position)
         ORDER BY e.transaction_id, e.global_position
         LIMIT 1) unread ON true`;
}

/** Attaches the follower-lag gauges to this service's log; the function returned detaches them. */
export function attachFollowerLag(dataSource: DataSource, schema: string, registered: () => readonly string[], onError?: (error: unknown) => void): () => void {
  const sql = followerLagSql(schema);
  const sample = new ScrapeSample(() => boundedQuery<LagRow>(dataSource, sql, [[...registered()]]), { onError });
  const read = <K extends 'events_behind' | 'seconds_behind'>(key: K) => async (): Promise<Reading<'follower'>[] | undefined> =>
    (await sample.current())?.map((row) => ({ labels: { follower: row.follower }, value: Number(row[key]) }));
  const detach = [eventsBehind.attach(read('events_behind')), secondsBehind.attach(read('seconds_behind'))];
  return () => detach.forEach((d) => d());
}
