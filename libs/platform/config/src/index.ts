export * from './load-config';
export * from './platform.config';
