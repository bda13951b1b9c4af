export * from './correlation-context';
export * from './logger';
export * from './nest-logger.adapter';
export * from './failure-streak';
