export * from './command-bus';
export * from './command-server';
export * from './kafka-connection';
export * from './kafka-record';
export * from './message-producer';
export * from './outbox-relay';
export * from './resilient-consumer';
export * from './topic-spec';
