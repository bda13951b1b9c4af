/*
 * The admin CLI's opt-out commands, turned into admin API requests. Pure, like routing-requests.ts:
 * the CLI sends what this returns. The MSISDN goes as typed; the API reads it and says what is wrong.
 */
import { UsageError, type AdminRequest } from './routing-requests';

export const OPT_OUT_USAGE = `  opt-out <accountId> <subAccountId> <msisdn>  no message of the sub-account is sent to the number (+447911123456)
  opt-in <accountId> <subAccountId> <msisdn>   the sub-account may message the number again
  list-opt-outs <accountId> <subAccountId> [--after <msisdn>] [--limit N]
                                              opted-out numbers by MSISDN (pass the answer's next as --after)`;

/** The request for an opt-out command, or null when `command` is not one of them. */
export function optOutRequest(command: string | undefined, args: readonly string[]): AdminRequest | null {
  switch (command) {
    case 'opt-out':
      return { method: 'PUT', path: optOutPath(command, args) };
    case 'opt-in':
      return { method: 'DELETE', path: optOutPath(command, args) };
    case 'list-opt-outs':
      return { method: 'GET', path: `${collection(command, args)}${listQuery(args.slice(2))}` };
    default:
      return null;
  }
}

function optOutPath(command: string, args: readonly string[]): string {
  const [, , msisdn, ...extra] = args;
  if (msisdn === undefined || msisdn.startsWith('--') || extra.length > 0) throw new UsageError(`${command} needs an account id, a sub-account id and an MSISDN`);
  return `${collection(command, args)}/${encodeURIComponent(msisdn)}`;
}

function collection(command: string, args: readonly string[]): string {
  const [accountId, subAccountId] = args;
  if (accountId === undefined || subAccountId === undefined || accountId.startsWith('--') || subAccountId.startsWith('--')) {
    throw new UsageError(`${command} needs an account id and a sub-account id`);
  }
  return `/admin/v1/accounts/${encodeURIComponent(accountId)}/sub-accounts/${encodeURIComponent(subAccountId)}/opt-outs`;
}

function listQuery(flags: readonly string[]): string {
  const query = new URLSearchParams();
  for (let i = 0; i < flags.length; i += 2) {
    const [name, value] = [flags[i] as string, flags[i + 1]];
    if (name !== '--after' && name !== '--limit') throw new UsageError(`unknown option ${name}`);
    if (value === undefined) throw new UsageError(`${name} needs a value`);
    query.set(name.slice(2), value);
  }
  const text = query.toString();
  return text ? `?${text}` : '';
}
