import { Controller, Delete, Get, HttpCode, Param, Put, Query, UseGuards } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { OptOutPage, OptOutView } from '@seed/sms-batch-contracts';
import { AccountIdPipe } from '../admin/admin-path-ids';
import { AdminTokenGuard } from '../admin/admin-token.guard';
import { AccountParam } from '../openapi/path-params.openapi';
import { AdminTokenProtected } from '../openapi/protected-by.openapi';
import { OptOutCommands, type SubAccountRef } from './opt-out-commands';
import { listParameters, pathMsisdn } from './opt-out-request.validation';
import { GetOptOutDocs, ListOptOutsDocs, OptInDocs, OptOutDocs, SubAccountOfAccountParam } from './opt-outs.openapi';

/**
 * The operator's view of a sub-account's opted-out recipients: read them, opt one out (a complaint
 * that came by phone or e-mail), opt one back in. Recipients opt out themselves by keyword; this is
 * the same state, changed with source `admin`.
 */
@Controller('admin/v1/accounts/:accountId/sub-accounts/:subAccountId/opt-outs')
@UseGuards(AdminTokenGuard)
@ApiTags('Opt-outs')
@AdminTokenProtected()
@AccountParam()
@SubAccountOfAccountParam()
export class OptOutsController {
  constructor(private readonly optOuts: OptOutCommands) {}

  @Get()
  @ListOptOutsDocs()
  async list(@Param('accountId', AccountIdPipe) accountId: string, @Param('subAccountId') subAccountId: string, @Query() query: unknown): Promise<OptOutPage> {
    const page = listParameters(query);
    const ref = await this.subAccount(accountId, subAccountId);
    return this.optOuts.list(ref, page);
  }

  @Get(':msisdn')
  @GetOptOutDocs()
  async get(@Param('accountId', AccountIdPipe) accountId: string, @Param('subAccountId') subAccountId: string, @Param('msisdn') msisdn: string): Promise<OptOutView> {
    const recipient = pathMsisdn(msisdn);
    return this.optOuts.get(await this.subAccount(accountId, subAccountId), recipient);
  }

  /** Idempotent: a recipient already opted out keeps when and how they first did. */
  @Put(':msisdn')
  @OptOutDocs()
  async optOut(@Param('accountId', AccountIdPipe) accountId: string, @Param('subAccountId') subAccountId: string, @Param('msisdn') msisdn: string): Promise<OptOutView> {
    const recipient = pathMsisdn(msisdn);
    return this.optOuts.optOut(await this.subAccount(accountId, subAccountId), recipient);
  }

  /** Idempotent: a recipient who is not opted out is answered 204 as well. */
  @Delete(':msisdn')
  @HttpCode(204)
  @OptInDocs()
  async optIn(@Param('accountId', AccountIdPipe) accountId: string, @Param('subAccountId') subAccountId: string, @Param('msisdn') msisdn: string): Promise<void> {
    const recipient = pathMsisdn(msisdn);
    await this.optOuts.optIn(await this.subAccount(accountId, subAccountId), recipient);
  }

  // The path's number is checked before the sub-account: a malformed request is answered without a lookup.
  private async subAccount(accountId: string, subAccountId: string): Promise<SubAccountRef> {
    const ref = { accountId, subAccountId };
    await this.optOuts.requireSubAccount(ref);
    return ref;
  }
}
