/*
 * The admin CLI's number commands, turned into admin API requests. Pure, like routing-requests.ts:
 * the CLI sends what this returns. The number goes as typed (`+` escaped for the path); the API
 * reads it and says what is wrong.
 */
import { UsageError, type AdminRequest } from './routing-requests';

export const NUMBER_USAGE = `  put-number <number> <accountId> <subAccountId> [--webhook URL] [--help-text TEXT] [--carriers ID,ID]
                                              assign a long number (+447700900123) or short code to a sub-account,
                                              moving it from another; without --webhook, inbound SMS go to the account's callback URL;
                                              without --carriers, the carriers of its routes may deliver inbound SMS to it
  list-numbers [subAccountId]                 every number, or one sub-account's
  remove-number <number>                      inbound SMS to it are recorded and no longer posted`;

const PUT_OPTIONS: Record<string, 'inboundWebhookUrl' | 'helpText' | 'carriers'> = { '--webhook': 'inboundWebhookUrl', '--help-text': 'helpText', '--carriers': 'carriers' };

/** The request for a number command, or null when `command` is not one of them. */
export function numberRequest(command: string | undefined, args: readonly string[]): AdminRequest | null {
  switch (command) {
    case 'put-number': {
      const [number, accountId, subAccountId, ...flags] = args;
      if (!given(number) || !given(accountId) || !given(subAccountId)) throw new UsageError('put-number needs a number, an account id and a sub-account id');
      return { method: 'PUT', path: numberPath(number), body: { accountId, subAccountId, ...putOptions(flags) } };
    }
    case 'list-numbers': {
      const [subAccountId, ...extra] = args;
      if (extra.length > 0 || (subAccountId !== undefined && !given(subAccountId))) throw new UsageError('list-numbers takes at most a sub-account id');
      return { method: 'GET', path: subAccountId === undefined ? '/admin/v1/numbers' : `/admin/v1/numbers?${new URLSearchParams({ subAccountId }).toString()}` };
    }
    case 'remove-number': {
      const [number, ...extra] = args;
      if (!given(number) || extra.length > 0) throw new UsageError('remove-number needs a number');
      return { method: 'DELETE', path: numberPath(number) };
    }
    default:
      return null;
  }
}

function putOptions(flags: readonly string[]): Record<string, string | string[]> {
  const body: Record<string, string | string[]> = {};
  for (let i = 0; i < flags.length; i += 2) {
    const name = flags[i] as string;
    const field = PUT_OPTIONS[name];
    if (field === undefined) throw new UsageError(`unknown option ${name}`);
    const value = flags[i + 1];
    if (value === undefined) throw new UsageError(`${name} needs a value`);
    body[field] = field === 'carriers' ? value.split(',').map((id) => id.trim()) : value;
  }
  return body;
}

/** A value, not an option in its place. */
function given(value: string | undefined): value is string {
  return value !== undefined && value !== '' && !value.startsWith('--');
}

// encodeURIComponent turns `+` into %2B: a path's `+` is a plus to the API too, but proxies differ.
const numberPath = (number: string) => `/admin/v1/numbers/${encodeURIComponent(number)}`;
