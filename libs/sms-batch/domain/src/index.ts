export * from './gsm7-alphabet';
export * from './sms-text';
export * from './sms-source';
export * from './msisdn';
export * from './batch-submission.decider';
