export * from './health.controller';
export * from './platform.module';
export * from './platform.tokens';
export * from './service-lifecycle';
export * from './service-schema';
export * from './subscription-registry';
export * from './bootstrap-service';
