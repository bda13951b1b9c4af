import { Body, Controller, Delete, Get, HttpCode, Param, Put, UseGuards } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { RouteView } from '@seed/sms-batch-contracts';
import { AdminTokenGuard } from '../admin/admin-token.guard';
import { ApiError } from '../http/api-error';
import { validateBody } from '../http/validate-body';
import { AdminTokenProtected } from '../openapi/protected-by.openapi';
import { knownId, putId, RoutingCommands } from './routing-commands';
import { PutRouteDto } from './routing.dto';
import { GetRouteDocs, ListRoutesDocs, PutRouteDocs, RemoveRouteDocs } from './routing.openapi';

/** The ordered routing table: the first route whose match takes a message picks its carriers. */
@Controller('admin/v1/routes')
@UseGuards(AdminTokenGuard)
@ApiTags('Carriers and routes')
@AdminTokenProtected()
export class RoutesController {
  constructor(private readonly routing: RoutingCommands) {}

  @Get()
  @ListRoutesDocs()
  async list(): Promise<{ routes: RouteView[] }> {
    return { routes: (await this.routing.table()).routes };
  }

  @Get(':routeId')
  @GetRouteDocs()
  async get(@Param('routeId') routeId: string): Promise<RouteView> {
    const id = knownId(routeId, 'route');
    const route = (await this.routing.table()).routes.find((r) => r.routeId === id);
    if (!route) throw ApiError.notFound(`no route ${id}`);
    return route;
  }

  @Put(':routeId')
  @PutRouteDocs()
  async put(@Param('routeId') routeId: string, @Body() body: unknown): Promise<RouteView> {
    const id = putId(routeId, 'routeId');
    return this.routing.putRoute(id, validateBody(PutRouteDto, body));
  }

  @Delete(':routeId')
  @HttpCode(204)
  @RemoveRouteDocs()
  async remove(@Param('routeId') routeId: string): Promise<void> {
    await this.routing.removeRoute(knownId(routeId, 'route'));
  }
}
