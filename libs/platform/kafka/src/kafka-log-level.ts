import { logLevel } from 'kafkajs';
import { errorCodes } from 'kafkajs/src/protocol/error';

export type PinoLevel = 'error' | 'warn' | 'info' | 'debug';

const LEVELS: Record<number, PinoLevel> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/**
 * Protocol errors the broker answers in normal operation, which kafkajs retries or recovers from
 * by itself: the retriable ones (a leader moving, a topic's metadata not there yet, a group
 * coordinator loading), a group rebalancing (the member rejoins) and a topic created by another
 * replica first. kafkajs logs every error answer as an error; these are not an operator's to act
 * on, and a start or a broker restart would log dozens of them.
 */
const EXPECTED = new Set([
  ...errorCodes.filter((e) => e.retriable).map((e) => e.message),
  ...errorCodes.filter((e) => ['REBALANCE_IN_PROGRESS', 'TOPIC_ALREADY_EXISTS', 'UNKNOWN_MEMBER_ID', 'ILLEGAL_GENERATION'].includes(e.type)).map((e) => e.message),
  // A producer identity the broker no longer accepts: MessageProducer replaces the producer (and warns).
  ...errorCodes.filter((e) => ['OUT_OF_ORDER_SEQUENCE_NUMBER', 'UNKNOWN_PRODUCER_ID', 'INVALID_PRODUCER_EPOCH'].includes(e.type)).map((e) => e.message),
]);

/**
 * kafkajs's own lines about a broker it cannot reach and consumers it restarts: what a broker
 * restart makes, for seconds, in every service. A broker that stays away is seen elsewhere: the
 * readiness probes, the gateway's 503s, and the platform's consumer restarts (`CrashRestarter`),
 * which become errors after a minute.
 */
const TRANSIENT_LINES = [/^Connection error: /, /^Closed connection/, /^Connection timeout/, /^Request .* timed out/, /^Failed to connect to seed broker/, /^Restarting the consumer in /, /^Crash: /];

/**
 * The pino level of a kafkajs log line: kafkajs's own, except that a broker's answer with an
 * expected protocol error (`Response <Api>(...)` with `error`, the retrier's and the producer's
 * lines about it) and the lines of a broker restart (connections refused, consumers crashing and
 * restarted) are warnings. What is left at error level is what an operator should look at: a
 * request that ran out of retries on something else, a refusal (authorization, a message too large).
 */
export function kafkaLogLevel(level: number, log: { message?: string; error?: unknown }): PinoLevel {
  const mapped = LEVELS[level] ?? 'info';
  const message = log.message;
  if (mapped !== 'error' || typeof message !== 'string') return mapped;
  if (message.startsWith('Response ')) {
    // A topic another replica created first; ensureTopics reports any real refusal itself.
    if (message.startsWith('Response CreateTopics') && log.error === 'Topic creation errors') return 'warn';
    return typeof log.error === 'string' && EXPECTED.has(log.error) ? 'warn' : mapped;
  }
  // The retrier's line is the error's message; the producer's, "Failed to send messages: <message>".
  const cause = message.replace(/^Failed to send messages: /, '');
  if (EXPECTED.has(cause)) return 'warn';
  return TRANSIENT_LINES.some((line) => line.test(cause)) ? 'warn' : mapped;
}
