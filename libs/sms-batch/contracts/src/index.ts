export * from './sms-batch.commands';
export * from './sms-batch.events';
