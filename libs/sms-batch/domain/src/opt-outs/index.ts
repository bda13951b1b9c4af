export * from './opt-out.decider';
