import { Injectable } from '@nestjs/common';
import {
  NUMBERS_COMMAND_KEY,
  SMS_BATCH_COMMAND_TOPIC,
  type GetNumberQuery,
  type ListNumbersQuery,
  type NumberInput,
  type NumberView,
  type PutNumberCommand,
  type RemoveNumberCommand,
} from '@seed/sms-batch-contracts';
import { AccountsRepository } from '../accounts/accounts.repository';
import { CommandClient } from '../commands/command-client';
import { ApiError } from '../http/api-error';

/**
 * sms-batch owns the numbers (its inbound path reads them); the gateway owns accounts, so it answers
 * an unknown account or a foreign sub-account itself and only then asks. Every numbers command goes
 * with one key: sms-batch decides them one after another, so a number moved twice ends where the
 * second move put it.
 */
@Injectable()
export class NumberCommands {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly commands: CommandClient,
  ) {}

  /** 404 for an account that does not exist or a sub-account that is not its own, before anything is sent. */
  async requireSubAccountOf(accountId: string, subAccountId: string): Promise<void> {
    const subAccountIds = await this.accounts.subAccountsOf(accountId);
    if (subAccountIds.length === 0) throw ApiError.notFound(`account ${accountId} does not exist`);
    if (!subAccountIds.includes(subAccountId)) throw ApiError.notFound(`account ${accountId} has no sub-account ${subAccountId}`);
  }

  /** A list filtered by a sub-account nobody has is a typo, not an empty list. */
  async requireSubAccount(subAccountId: string): Promise<void> {
    if (!(await this.accounts.subAccountExists(subAccountId))) throw ApiError.notFound(`sub-account ${subAccountId} does not exist`);
  }

  put(number: string, assignment: NumberInput): Promise<NumberView> {
    return this.send<NumberView, PutNumberCommand>('PutNumber', { number, assignment });
  }

  async remove(number: string): Promise<void> {
    await this.send<{ number: string }, RemoveNumberCommand>('RemoveNumber', { number });
  }

  get(number: string): Promise<NumberView> {
    return this.send<NumberView, GetNumberQuery>('GetNumber', { number });
  }

  list(subAccountId: string | null): Promise<{ numbers: NumberView[] }> {
    return this.send<{ numbers: NumberView[] }, ListNumbersQuery>('ListNumbers', { subAccountId });
  }

  private send<TResult, TMessage extends { type: string; data: unknown }>(type: TMessage['type'], data: TMessage['data']): Promise<TResult> {
    return this.commands.send<TResult, TMessage['data']>(SMS_BATCH_COMMAND_TOPIC, NUMBERS_COMMAND_KEY, type, data);
  }
}
