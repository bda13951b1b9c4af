export * from './claim.sql';
export * from './claim-planning';
export * from './fence.sql';
export * from './fenced-off';
export * from './lease-token';
export * from './queue-depth.sql';
export * from './work-queue-table';
export * from './work-queue.metrics';
