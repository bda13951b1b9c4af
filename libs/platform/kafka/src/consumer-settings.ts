/** The settings of the platform's command and reply consumers (kafkajs `consumer()` options besides the group). */
export const CONSUMER_SETTINGS = {
  sessionTimeout: 10_000,
  heartbeatInterval: 1000,
  // The broker answers a fetch as soon as a record arrives (minBytes 1): a long wait costs no
  // latency, and spares the broker and this process a dozen empty fetches a second when idle.
  maxWaitTimeInMs: 1000,
  maxBytesPerPartition: 32 * 1024 * 1024,
} as const;
