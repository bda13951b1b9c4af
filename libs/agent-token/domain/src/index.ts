export * from './call-reference';
export * from './room.decider';
