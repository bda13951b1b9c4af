export * from './inbound-assembly.decider';
