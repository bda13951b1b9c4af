/** Kafka header names shared by every producer and consumer of the platform. */
export const MessageHeader = {
  MessageId: 'message-id',
  MessageType: 'message-type',
  CorrelationId: 'correlation-id',
  CausationId: 'causation-id',
  Traceparent: 'traceparent',
  ReplyTo: 'reply-to',
  /** Set on dead-lettered records: why the consumer gave up. */
  DeadLetterReason: 'dead-letter-reason',
  DeadLetterSourceTopic: 'dead-letter-source-topic',
} as const;
