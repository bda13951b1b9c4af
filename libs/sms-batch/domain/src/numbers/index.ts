export * from './numbers.decider';
