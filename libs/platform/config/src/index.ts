export * from './load-config';
export * from './platform.config';
export * from './database-url';
