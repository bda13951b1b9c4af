import { Injectable } from '@nestjs/common';
import {
  SMS_BATCH_COMMAND_TOPIC,
  type GetOptOutQuery,
  type ListOptOutsQuery,
  type OptInCommand,
  type OptOutCommand,
  type OptOutPage,
  type OptOutView,
} from '@seed/sms-batch-contracts';
import { AccountsRepository } from '../accounts/accounts.repository';
import { CommandClient } from '../commands/command-client';
import { ApiError } from '../http/api-error';
import type { OptOutListParameters } from './opt-out-request.validation';

/** Sub-account ids as the admin API creates them (admin.dto.ts); nothing else can exist. */
const SUB_ACCOUNT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{1,62}$/;

/** A sub-account of an account the gateway knows: what every opt-out request names. */
export interface SubAccountRef {
  accountId: string;
  subAccountId: string;
}

/**
 * sms-batch owns opt-outs (it is the one that must refuse to send); the gateway owns accounts, so
 * it answers an unknown account or a foreign sub-account itself and only then asks. Every command
 * is keyed by sub-account: one sub-account's changes are decided in the order they were made.
 */
@Injectable()
export class OptOutCommands {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly commands: CommandClient,
  ) {}

  /** 404 for an account that does not exist or a sub-account that is not its own, before anything is sent. */
  async requireSubAccount(ref: SubAccountRef): Promise<void> {
    const noSubAccount = ApiError.notFound(`account ${ref.accountId} has no sub-account ${JSON.stringify(ref.subAccountId)}`);
    // An id no sub-account can have is not looked up: a NUL byte (`%00`) would fail in PostgreSQL (a 500).
    if (!SUB_ACCOUNT_ID.test(ref.subAccountId)) throw noSubAccount;
    const subAccountIds = await this.accounts.subAccountsOf(ref.accountId);
    if (subAccountIds.length === 0) throw ApiError.notFound(`account ${ref.accountId} does not exist`);
    if (!subAccountIds.includes(ref.subAccountId)) throw noSubAccount;
  }

  optOut(ref: SubAccountRef, msisdn: string): Promise<OptOutView> {
    return this.send<OptOutView, OptOutCommand>(ref, 'OptOut', { ...ref, msisdn, source: 'admin', keyword: null });
  }

  async optIn(ref: SubAccountRef, msisdn: string): Promise<void> {
    await this.send<unknown, OptInCommand>(ref, 'OptIn', { ...ref, msisdn, source: 'admin', keyword: null });
  }

  get(ref: SubAccountRef, msisdn: string): Promise<OptOutView> {
    return this.send<OptOutView, GetOptOutQuery>(ref, 'GetOptOut', { ...ref, msisdn });
  }

  list(ref: SubAccountRef, page: OptOutListParameters): Promise<OptOutPage> {
    return this.send<OptOutPage, ListOptOutsQuery>(ref, 'ListOptOuts', { ...ref, after: page.after, limit: page.limit });
  }

  private send<TResult, TMessage extends { type: string; data: unknown }>(ref: SubAccountRef, type: TMessage['type'], data: TMessage['data']): Promise<TResult> {
    return this.commands.send<TResult, TMessage['data']>(SMS_BATCH_COMMAND_TOPIC, ref.subAccountId, type, data);
  }
}
