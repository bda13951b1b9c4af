import { Body, Controller, Delete, Get, HttpCode, Param, Put, Query, UseGuards } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { NumberView } from '@seed/sms-batch-contracts';
import { AdminTokenGuard } from '../admin/admin-token.guard';
import { AdminTokenProtected } from '../openapi/protected-by.openapi';
import { NumberCommands } from './number-commands';
import { knownNumber, listFilter, numberInput, putNumber } from './number-request.validation';
import { GetNumberDocs, ListNumbersDocs, PutNumberDocs, RemoveNumberDocs } from './numbers.openapi';

/**
 * The operator's numbers (long numbers and short codes): which sub-account receives the inbound
 * SMS sent to each, where they are posted, and what a HELP is answered with.
 */
@Controller('admin/v1/numbers')
@UseGuards(AdminTokenGuard)
@ApiTags('Numbers')
@AdminTokenProtected()
export class NumbersController {
  constructor(private readonly numbers: NumberCommands) {}

  @Get()
  @ListNumbersDocs()
  async list(@Query() query: unknown): Promise<{ numbers: NumberView[] }> {
    const subAccountId = listFilter(query);
    if (subAccountId !== null) await this.numbers.requireSubAccount(subAccountId);
    return this.numbers.list(subAccountId);
  }

  @Get(':number')
  @GetNumberDocs()
  async get(@Param('number') number: string): Promise<NumberView> {
    return this.numbers.get(knownNumber(number));
  }

  /** Idempotent: the assignment stated whole replaces the stored one, which may be another sub-account's. */
  @Put(':number')
  @PutNumberDocs()
  async put(@Param('number') number: string, @Body() body: unknown): Promise<NumberView> {
    // Every shape check first: a malformed request is answered without a lookup.
    const stored = putNumber(number);
    const assignment = numberInput(body);
    await this.numbers.requireSubAccountOf(assignment.accountId, assignment.subAccountId);
    return this.numbers.put(stored, assignment);
  }

  @Delete(':number')
  @HttpCode(204)
  @RemoveNumberDocs()
  async remove(@Param('number') number: string): Promise<void> {
    await this.numbers.remove(knownNumber(number));
  }
}
