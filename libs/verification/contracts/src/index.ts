export * from './verification.commands';
export * from './verification.events';
export * from './verification.limits';
