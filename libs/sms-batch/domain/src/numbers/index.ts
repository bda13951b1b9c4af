export * from './numbers.decider';
export * from './inbound-carriers';
