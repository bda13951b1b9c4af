export * from './bounded-query';
export * from './platform-metrics';
export * from './sampled-gauge';
export * from './scrape-sample';
export * from './sql-row-gauges';
