import { Body, Controller, Delete, Get, HttpCode, Param, Put, UseGuards } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { CarrierView } from '@seed/sms-batch-contracts';
import { AdminTokenGuard } from '../admin/admin-token.guard';
import { ApiError } from '../http/api-error';
import { validateBody } from '../http/validate-body';
import { AdminTokenProtected } from '../openapi/protected-by.openapi';
import { knownId, putId, RoutingCommands } from './routing-commands';
import { PutCarrierDto } from './routing.dto';
import { GetCarrierDocs, ListCarriersDocs, PutCarrierDocs, RemoveCarrierDocs } from './routing.openapi';

/** The operator's carriers: SMPP accounts at operators, with their limits. Passwords go in, never out. */
@Controller('admin/v1/carriers')
@UseGuards(AdminTokenGuard)
@ApiTags('Carriers and routes')
@AdminTokenProtected()
export class CarriersController {
  constructor(private readonly routing: RoutingCommands) {}

  @Get()
  @ListCarriersDocs()
  async list(): Promise<{ carriers: CarrierView[] }> {
    return { carriers: (await this.routing.table()).carriers };
  }

  @Get(':carrierId')
  @GetCarrierDocs()
  async get(@Param('carrierId') carrierId: string): Promise<CarrierView> {
    const id = knownId(carrierId, 'carrier');
    const carrier = (await this.routing.table()).carriers.find((c) => c.carrierId === id);
    if (!carrier) throw ApiError.notFound(`no carrier ${id}`);
    return carrier;
  }

  @Put(':carrierId')
  @PutCarrierDocs()
  async put(@Param('carrierId') carrierId: string, @Body() body: unknown): Promise<CarrierView> {
    const id = putId(carrierId, 'carrierId');
    return this.routing.putCarrier(id, validateBody(PutCarrierDto, body));
  }

  @Delete(':carrierId')
  @HttpCode(204)
  @RemoveCarrierDocs()
  async remove(@Param('carrierId') carrierId: string): Promise<void> {
    await this.routing.removeCarrier(knownId(carrierId, 'carrier'));
  }
}
