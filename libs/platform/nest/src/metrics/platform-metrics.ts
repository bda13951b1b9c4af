import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { KafkaConnection } from '@seed/platform-kafka';
import { LOGGER } from '../platform.tokens';
import { ServiceSchema } from '../service-schema';
import { SubscriptionRegistry } from '../subscription-registry';
import { attachConsumerLag, ConsumerLagReader } from './consumer-lag.metrics';
import { attachFollowerLag } from './follower-lag.metrics';

/**
 * The gauges every service exports besides process metrics: how far its log followers and its
 * Kafka consumer groups are behind. Both are read when Prometheus scrapes (see ScrapeSample).
 */
@Injectable()
export class PlatformMetrics implements OnModuleInit, OnApplicationShutdown {
  private readonly detach: (() => void)[] = [];
  private readonly consumerLag: ConsumerLagReader;

  constructor(
    private readonly dataSource: DataSource,
    private readonly schema: ServiceSchema,
    private readonly subscriptions: SubscriptionRegistry,
    connection: KafkaConnection,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.consumerLag = new ConsumerLagReader(connection);
  }

  onModuleInit(): void {
    const failed = (what: string) => (error: unknown) => this.logger.debug({ err: error }, `metrics: ${what} not read`);
    this.detach.push(
      attachFollowerLag(this.dataSource, this.schema.name, () => this.subscriptions.names(), failed('follower lag')),
      attachConsumerLag(this.consumerLag, failed('consumer lag')),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    for (const detach of this.detach.splice(0)) detach();
    await this.consumerLag.close();
  }
}
