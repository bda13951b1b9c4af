import type { DataSource } from 'typeorm';
import { boundedQuery } from './bounded-query';
import type { SampledGauge } from './sampled-gauge';
import { ScrapeSample } from './scrape-sample';

/**
 * Feeds label-less gauges from the columns of one row that `sql` returns (queue depths and ages),
 * read at scrape time at most as often as `ScrapeSample` allows, whatever the number of gauges and
 * scrapes. Negative values (clock skew between the database and a timestamp) read as 0. Returns
 * the function that detaches them all.
 */
export function attachSqlRowGauges<K extends string>(
  dataSource: DataSource,
  sql: string,
  gauges: Record<K, SampledGauge>,
  onError: (error: unknown) => void,
): () => void {
  const sample = new ScrapeSample(async () => (await boundedQuery<Record<K, number>>(dataSource, sql))[0], { onError });
  const detach = (Object.keys(gauges) as K[]).map((key) =>
    gauges[key].attach(async () => {
      const row = await sample.current();
      return row ? [{ labels: {}, value: Math.max(0, Number(row[key])) }] : undefined;
    }),
  );
  return () => detach.forEach((d) => d());
}
