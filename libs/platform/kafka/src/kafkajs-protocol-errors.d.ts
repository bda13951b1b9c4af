// kafkajs's table of Kafka protocol errors (no published types); only what the log levels read.
declare module 'kafkajs/src/protocol/error' {
  export const errorCodes: readonly { type: string; code: number; retriable: boolean; message: string }[];
}
