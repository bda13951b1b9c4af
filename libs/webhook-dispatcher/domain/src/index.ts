export * from './account-webhook.decider';
export * from './backoff';
export * from './circuit-breaker';
export * from './delivery.decider';
export * from './delivery.events';
export * from './signature';
export * from './status-change';
export * from './target-policy';
