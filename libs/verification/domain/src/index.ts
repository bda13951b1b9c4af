export * from './verification.decider';
export * from './verification-text';
