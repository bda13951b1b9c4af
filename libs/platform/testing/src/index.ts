export * from './test-infra';
export * from './unique-name';
export * from './stack-harness';
export * from './asyncapi-document';
export * from './private-infra';
export * from './headless-browser';
export * from './schemathesis';
export * from './otlp-receiver';
