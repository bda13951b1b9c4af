export * from './claim-bench';
