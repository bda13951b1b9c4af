import type { NewEvent } from '@seed/contracts';
import type { OptOutSource, OptOutView, RecipientOptedInV1, RecipientOptedOutV1 } from '@seed/sms-batch-contracts';

/** One recipient of one sub-account: opted out (with how and when) or not. */
export interface OptOutState {
  optedOut: OptOutView | null;
}

export const NO_OPT_OUT: OptOutState = { optedOut: null };

export type OptOutChange =
  | { type: 'OptOut'; accountId: string; subAccountId: string; msisdn: string; source: OptOutSource; keyword: string | null; at: string }
  | { type: 'OptIn'; accountId: string; subAccountId: string; msisdn: string; source: OptOutSource; keyword: string | null; at: string };

export type OptOutEvent = NewEvent<RecipientOptedOutV1, 'RecipientOptedOut'> | NewEvent<RecipientOptedInV1, 'RecipientOptedIn'>;

export function evolveOptOut(state: OptOutState, event: { type: string; data: unknown }): OptOutState {
  switch (event.type) {
    case 'RecipientOptedOut': {
      const data = event.data as RecipientOptedOutV1;
      return { optedOut: { subAccountId: data.subAccountId, msisdn: data.msisdn, source: data.source, keyword: data.keyword, optedOutAt: data.optedOutAt } };
    }
    case 'RecipientOptedIn':
      return NO_OPT_OUT;
    default:
      return state;
  }
}

/**
 * Idempotent both ways: a STOP from someone already out (phones resend, people repeat themselves)
 * or an operator's opt-in of someone who never opted out appends nothing.
 */
export function decideOptOut(change: OptOutChange, state: OptOutState): OptOutEvent[] {
  const { accountId, subAccountId, msisdn, source, keyword, at } = change;
  if (change.type === 'OptOut') {
    if (state.optedOut) return [];
    return [{ type: 'RecipientOptedOut', schemaVersion: 1, data: { accountId, subAccountId, msisdn, source, keyword, optedOutAt: at } }];
  }
  if (!state.optedOut) return [];
  return [{ type: 'RecipientOptedIn', schemaVersion: 1, data: { accountId, subAccountId, msisdn, source, keyword, optedInAt: at } }];
}
