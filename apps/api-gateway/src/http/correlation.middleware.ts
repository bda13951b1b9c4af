import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { runWithCorrelation } from '@seed/platform-logging';
import { onwardTraceparent } from '@seed/platform-telemetry';

export const CORRELATION_HEADER = 'x-correlation-id';
const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,100}$/;
/** W3C trace context: kept on commands and events so traces can join this platform's work. */
const TRACEPARENT = /^[\da-f]{2}-[\da-f]{32}-[\da-f]{16}-[\da-f]{2}$/;

/**
 * Takes the caller's correlation id (or makes one), echoes it in the response, and scopes the rest
 * of the request to it: log lines and Kafka headers carry it from here into every service.
 */
export function correlation(req: Request, res: Response, next: NextFunction): void {
  const asked = req.headers[CORRELATION_HEADER];
  const correlationId = typeof asked === 'string' && ACCEPTABLE.test(asked) ? asked : randomUUID();
  const given = typeof req.headers['traceparent'] === 'string' && TRACEPARENT.test(req.headers['traceparent']) ? req.headers['traceparent'] : null;
  // Tracing on: the request's server span (a child of the caller's); off: the caller's, passed through.
  const traceparent = onwardTraceparent(given);
  res.setHeader('X-Correlation-Id', correlationId);
  runWithCorrelation({ correlationId, traceparent }, next);
}
