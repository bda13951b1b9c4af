export * from './sms-batch.commands';
export * from './sms-batch.events';
export * from './sms-message-lifecycle.events';
export * from './sms-batch.queries';
export * from './carriers-and-routes';
export * from './opt-outs';
export * from './numbers';
export * from './inbound';
