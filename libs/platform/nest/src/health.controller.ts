import { Controller, Get, Header, HttpCode, ServiceUnavailableException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { register } from 'prom-client';
import './default-metrics';

/** Kubernetes probes and Prometheus scraping, on every service. */
@Controller()
export class HealthController {
  constructor(private readonly dataSource: DataSource) {}

  @Get('health/live')
  @HttpCode(200)
  live(): { status: string } {
    return { status: 'ok' };
  }

  @Get('health/ready')
  async ready(): Promise<{ status: string }> {
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
