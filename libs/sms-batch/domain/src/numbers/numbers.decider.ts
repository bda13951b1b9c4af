import type { NewEvent } from '@seed/contracts';
import { CARRIER_ID_PATTERN as CARRIER_ID, NUMBER_PATTERN, type NumberAssignedV1, type NumberInput, type NumberReleasedV1 } from '@seed/sms-batch-contracts';

/** Every number and the sub-account it belongs to (stream `numbers`). */
export interface NumbersState {
  numbers: Map<string, NumberAssignedV1>;
}

export type NumbersEvent = NewEvent<NumberAssignedV1, 'NumberAssigned'> | NewEvent<NumberReleasedV1, 'NumberReleased'>;

export type NumbersCommand = { type: 'PutNumber'; number: string; assignment: NumberInput } | { type: 'RemoveNumber'; number: string };

/** A command refused as it stands: nothing is written. */
export class NumbersError extends Error {
  override readonly name = 'NumbersError';

  constructor(
    readonly code: 'invalid' | 'unknown',
    message: string,
  ) {
    super(message);
  }
}

export const initialNumbersState = (): NumbersState => ({ numbers: new Map() });

/** A new state each time: a state handed out (the inbound path holds one) never changes underneath. */
export function evolveNumbers(state: NumbersState, event: { type: string; data: unknown }): NumbersState {
  const e = event as NumbersEvent;
  switch (e.type) {
    case 'NumberAssigned':
      return { numbers: new Map(state.numbers).set(e.data.number, e.data) };
    case 'NumberReleased': {
      const numbers = new Map(state.numbers);
      numbers.delete(e.data.number);
      return { numbers };
    }
    default:
      return state;
  }
}

/** A PUT equal to what is stored appends nothing; the gateway has checked the sub-account's account and the URL. */
export function decideNumbers(command: NumbersCommand, state: NumbersState, now: string): NumbersEvent[] {
  if (!NUMBER_PATTERN.test(command.number)) throw new NumbersError('invalid', 'number must be 3-15 digits: E.164 without + or a short code');
  const stored = state.numbers.get(command.number);
  if (command.type === 'RemoveNumber') {
    if (!stored) throw new NumbersError('unknown', `no number ${command.number}`);
    return [{ type: 'NumberReleased', schemaVersion: 1, data: { number: command.number, accountId: stored.accountId, subAccountId: stored.subAccountId, releasedAt: now } }];
  }
  const { accountId, subAccountId, inboundWebhookUrl, helpText } = command.assignment;
  const carriers = carriersOf(command.assignment.carriers);
  const sameCarriers = (stored?.carriers ?? null)?.join() === carriers?.join();
  if (stored && stored.accountId === accountId && stored.subAccountId === subAccountId && stored.inboundWebhookUrl === inboundWebhookUrl && stored.helpText === helpText && sameCarriers) return [];
  // `carriers` only when set, so that a number without a list reads as numbers assigned before it existed.
  return [{ type: 'NumberAssigned', schemaVersion: 1, data: { number: command.number, accountId, subAccountId, inboundWebhookUrl, helpText, ...(carriers ? { carriers } : {}), assignedAt: now } }];
}

/** An explicit carrier list, sorted and without repeats; null for none (the routes decide). */
function carriersOf(carriers: readonly string[] | null | undefined): string[] | null {
  if (carriers === null || carriers === undefined) return null;
  if (!Array.isArray(carriers) || carriers.length === 0 || carriers.some((c) => typeof c !== 'string' || !CARRIER_ID.test(c))) {
    throw new NumbersError('invalid', 'carriers must be a non-empty list of carrier ids, or null');
  }
  return [...new Set(carriers)].sort();
}
