import pino, { type Logger } from 'pino';
import { currentCorrelation } from './correlation-context';

export type { Logger } from 'pino';

/**
 * JSON logs on stdout. Every line written inside a correlation context carries its ids, so one
 * request can be followed from the gateway through Kafka into every service.
 * Field names that could hold secrets are redacted as a second line of defence: code paths
 * never pass keys or OTP codes to the logger in the first place.
 */
export function createLogger(service: string, level = 'info'): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: ['apiKey', '*.apiKey', 'authorization', '*.authorization', '*.headers.authorization', 'otpCode', '*.otpCode', 'password', '*.password', 'secret', '*.secret'],
      censor: '[redacted]',
    },
    mixin() {
      const context = currentCorrelation();
      return context ? { correlationId: context.correlationId, causationId: context.causationId ?? undefined } : {};
    },
  });
}
