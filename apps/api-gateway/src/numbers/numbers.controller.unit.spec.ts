import 'reflect-metadata';
import { NUMBERS_COMMAND_KEY, SMS_BATCH_COMMAND_TOPIC } from '@seed/sms-batch-contracts';
import type { AccountsRepository } from '../accounts/accounts.repository';
import type { CommandClient } from '../commands/command-client';
import { ApiError } from '../http/api-error';
import { NumberCommands } from './number-commands';
import { NumbersController } from './numbers.controller';

const subAccounts: Record<string, string[]> = { acme: ['acme_hq', 'acme_eu'], globex: ['globex_hq'] };

function given() {
  const sent: { topic: string; key: string; type: string; data: unknown }[] = [];
  const accounts = {
    subAccountsOf: async (accountId: string) => subAccounts[accountId] ?? [],
    subAccountExists: async (subAccountId: string) => Object.values(subAccounts).some((ids) => ids.includes(subAccountId)),
  } as unknown as AccountsRepository;
  const commands = {
    send: async (topic: string, key: string, type: string, data: unknown) => {
      sent.push({ topic, key, type, data });
      return { reply: type };
    },
  } as unknown as CommandClient;
  return { controller: new NumbersController(new NumberCommands(accounts, commands)), sent };
}

async function refusal(work: Promise<unknown>): Promise<{ status: number; code: number; message: string }> {
  const error: unknown = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return { status: error.status, code: error.code, message: error.message };
}

describe('numbers admin routes', () => {
  it('sends every command on the sms-batch command topic with the one numbers key, the number as stored', async () => {
    const { controller, sent } = given();
    await controller.put('+447700900123', { accountId: 'acme', subAccountId: 'acme_eu', helpText: 'Reply STOP to opt out' });
    await controller.get('447700900123');
    await controller.list({});
    await controller.list({ subAccountId: 'acme_eu' });
    await controller.remove('+447700900123');
    expect(sent).toEqual([
      {
        topic: SMS_BATCH_COMMAND_TOPIC,
        key: NUMBERS_COMMAND_KEY,
        type: 'PutNumber',
        data: { number: '447700900123', assignment: { accountId: 'acme', subAccountId: 'acme_eu', inboundWebhookUrl: null, helpText: 'Reply STOP to opt out', carriers: null } },
      },
      { topic: SMS_BATCH_COMMAND_TOPIC, key: NUMBERS_COMMAND_KEY, type: 'GetNumber', data: { number: '447700900123' } },
      { topic: SMS_BATCH_COMMAND_TOPIC, key: NUMBERS_COMMAND_KEY, type: 'ListNumbers', data: { subAccountId: null } },
      { topic: SMS_BATCH_COMMAND_TOPIC, key: NUMBERS_COMMAND_KEY, type: 'ListNumbers', data: { subAccountId: 'acme_eu' } },
      { topic: SMS_BATCH_COMMAND_TOPIC, key: NUMBERS_COMMAND_KEY, type: 'RemoveNumber', data: { number: '447700900123' } },
    ]);
    expect(NUMBERS_COMMAND_KEY).toBe('numbers');
  });

  it('answers an unknown account and a sub-account of another account with 404, and sends nothing', async () => {
    const { controller, sent } = given();
    expect(await refusal(controller.put('60777', { accountId: 'initech', subAccountId: 'initech_hq' }))).toEqual({ status: 404, code: 1300, message: 'account initech does not exist' });
    expect(await refusal(controller.put('60777', { accountId: 'acme', subAccountId: 'globex_hq' }))).toEqual({ status: 404, code: 1300, message: 'account acme has no sub-account globex_hq' });
    expect(await refusal(controller.list({ subAccountId: 'initech_hq' }))).toEqual({ status: 404, code: 1300, message: 'sub-account initech_hq does not exist' });
    expect(sent).toEqual([]);
  });

  it('refuses a bad number, URL or help text with 400 before any lookup, and sends nothing', async () => {
    const { controller, sent } = given();
    // An unknown account would be a 404: the 400 shows the shape is checked first.
    expect(await refusal(controller.put('+4477', { accountId: 'initech', subAccountId: 'initech_hq' }))).toMatchObject({ status: 400, code: 1000 });
    expect(await refusal(controller.put('60777', { accountId: 'initech', subAccountId: 'initech_hq', inboundWebhookUrl: 'ftp://x.example' }))).toMatchObject({ status: 400, code: 1000 });
    expect(await refusal(controller.put('60777', { accountId: 'initech', subAccountId: 'initech_hq', helpText: '' }))).toMatchObject({ status: 400, code: 1000 });
    expect(await refusal(controller.list({ subAccountId: ['a_hq', 'b_hq'] }))).toMatchObject({ status: 400, code: 1000 });
    expect(sent).toEqual([]);
  });

  it('answers a read or removal of a number that could never be stored with 404, without asking', async () => {
    const { controller, sent } = given();
    expect(await refusal(controller.get('not-a-number'))).toMatchObject({ status: 404, code: 1300 });
    expect(await refusal(controller.remove('12'))).toMatchObject({ status: 404, code: 1300 });
    expect(sent).toEqual([]);
  });
});
