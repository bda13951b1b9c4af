export * from './webhook-body';
export * from './webhook-dispatcher.commands';
export * from './callback-url';
