export * from './load-config';
export * from './platform.config';
export * from './kafka-client.config';
export * from './database-url';
export * from './secure-connections';
