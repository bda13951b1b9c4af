import { Controller, Get, Header, HttpCode, Inject, ServiceUnavailableException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { register } from 'prom-client';
import './default-metrics';
import { SERVICE_DEFINITION, type ServiceDefinition } from './platform.tokens';

/** Kubernetes probes and Prometheus scraping, on every service. */
@Controller()
export class HealthController {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(SERVICE_DEFINITION) private readonly service: ServiceDefinition,
  ) {}

  @Get('health/live')
  @HttpCode(200)
  live(): { status: string } {
    return { status: 'ok' };
  }

  @Get('health/ready')
  async ready(): Promise<{ status: string }> {
    if (this.service.readyWithoutDatabase) return { status: 'ok' };
    try {
      await this.dataSource.query('SELECT 1');
    } catch {
      throw new ServiceUnavailableException('database unavailable');
    }
    return { status: 'ok' };
  }

  @Get('metrics')
  @Header('Content-Type', register.contentType)
  metrics(): Promise<string> {
    return register.metrics();
  }
}
