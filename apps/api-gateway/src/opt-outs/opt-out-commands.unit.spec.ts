import { SMS_BATCH_COMMAND_TOPIC } from '@seed/sms-batch-contracts';
import type { AccountsRepository } from '../accounts/accounts.repository';
import type { CommandClient } from '../commands/command-client';
import { ApiError } from '../http/api-error';
import { OptOutCommands } from './opt-out-commands';

const subAccounts: Record<string, string[]> = { acme: ['acme_hq', 'acme_eu'], globex: ['globex_hq'] };

function given() {
  const sent: { topic: string; key: string; type: string; data: unknown }[] = [];
  const lookups: string[] = [];
  const accounts = {
    subAccountsOf: async (accountId: string) => {
      lookups.push(accountId);
      return subAccounts[accountId] ?? [];
    },
  } as unknown as AccountsRepository;
  const commands = {
    send: async (topic: string, key: string, type: string, data: unknown) => {
      sent.push({ topic, key, type, data });
      return { reply: type };
    },
  } as unknown as CommandClient;
  return { optOuts: new OptOutCommands(accounts, commands), sent, lookups };
}

async function notFound(work: Promise<unknown>): Promise<string> {
  const error: unknown = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  expect({ status: error.status, code: error.code }).toEqual({ status: 404, code: 1300 });
  return error.message;
}

describe('opt-out commands to sms-batch', () => {
  const ref = { accountId: 'acme', subAccountId: 'acme_eu' };

  it('sends each on the sms-batch command topic keyed by sub-account, changes with source admin', async () => {
    const { optOuts, sent } = given();
    await optOuts.optOut(ref, '447911123456');
    await optOuts.optIn(ref, '447911123456');
    await optOuts.get(ref, '447911123456');
    await optOuts.list(ref, { after: '447911123456', limit: 10 });
    expect(sent).toEqual([
      { topic: SMS_BATCH_COMMAND_TOPIC, key: 'acme_eu', type: 'OptOut', data: { ...ref, msisdn: '447911123456', source: 'admin', keyword: null } },
      { topic: SMS_BATCH_COMMAND_TOPIC, key: 'acme_eu', type: 'OptIn', data: { ...ref, msisdn: '447911123456', source: 'admin', keyword: null } },
      { topic: SMS_BATCH_COMMAND_TOPIC, key: 'acme_eu', type: 'GetOptOut', data: { ...ref, msisdn: '447911123456' } },
      { topic: SMS_BATCH_COMMAND_TOPIC, key: 'acme_eu', type: 'ListOptOuts', data: { ...ref, after: '447911123456', limit: 10 } },
    ]);
  });

  it("knows an account's own sub-accounts", async () => {
    const { optOuts } = given();
    await expect(optOuts.requireSubAccount(ref)).resolves.toBeUndefined();
    await expect(optOuts.requireSubAccount({ accountId: 'acme', subAccountId: 'acme_hq' })).resolves.toBeUndefined();
  });

  it('answers 404 for an unknown account and for a sub-account of another account', async () => {
    const { optOuts } = given();
    expect(await notFound(optOuts.requireSubAccount({ accountId: 'initech', subAccountId: 'initech_hq' }))).toBe('account initech does not exist');
    expect(await notFound(optOuts.requireSubAccount({ accountId: 'acme', subAccountId: 'globex_hq' }))).toBe('account acme has no sub-account "globex_hq"');
  });

  it('does not look up a sub-account id that could never exist', async () => {
    const { optOuts, lookups } = given();
    await notFound(optOuts.requireSubAccount({ accountId: 'acme', subAccountId: 'acme\u0000' }));
    expect(lookups).toEqual([]);
  });
});
