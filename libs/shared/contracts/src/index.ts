export * from './api-error-code';
export * from './command-message';
export * from './event-envelope';
export * from './message-headers';
