export const WEBHOOK_OPTIONS = Symbol('WEBHOOK_OPTIONS');

/** The dispatcher's settings that handlers read (the rest go straight into the sender and client). */
export interface WebhookOptions {
  secretOverlapMs: number;
}

/** Seals what crosses Kafka to the gateway (the shared MESSAGE_SEALING_KEYS). */
export const TRANSIT_SEALER = Symbol('TRANSIT_SEALER');
