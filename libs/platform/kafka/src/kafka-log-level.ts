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
]);

/**
 * The pino level of a kafkajs log line: kafkajs's own, except that a broker's answer with an
 * expected protocol error (`Response <Api>(...)` with `error`) is a warning. What is left at error
 * level is what an operator should look at: a crash, a request that ran out of retries, a refusal
 * (authorization, a message too large).
 */
export function kafkaLogLevel(level: number, log: { message?: string; error?: unknown }): PinoLevel {
  const mapped = LEVELS[level] ?? 'info';
  if (mapped !== 'error' || typeof log.message !== 'string' || !log.message.startsWith('Response ')) return mapped;
  return typeof log.error === 'string' && EXPECTED.has(log.error) ? 'warn' : mapped;
}
