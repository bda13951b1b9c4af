import { Kafka, logLevel, type Admin } from 'kafkajs';
import type { Logger } from 'pino';
import type { KafkaConnection } from './kafka-connection';
import { withTimeout } from './with-timeout';

export interface BrokerWatchOptions {
  /** A topic that exists; the probe asks the broker for its metadata. */
  probeTopic: string;
  /** How long a probe may take before it counts as failed. Default 1000 ms. */
  probeTimeoutMs?: number;
  /** How long a request waits for a probe it started before it is answered "down". Default 200 ms. */
  requestWaitMs?: number;
  /** While the broker is down, how often it is probed in the background. Default 1000 ms. */
  probeEveryMs?: number;
}

/**
 * What the gateway knows about the broker, so that a request made during an outage gets its 503
 * at once instead of after kafkajs's retries (up to a minute). The outage becomes known from a send
 * that failed or stalled, or a consumer that crashed; each is confirmed by a probe, a metadata
 * request without retries. While down, a probe runs every second, and a request arriving later than
 * `recentMs` after the last one probes first, so that the first request after the broker is back
 * goes through rather than waiting for the next background probe.
 */
export class BrokerWatch {
  private downSince: number | undefined;
  private reason = '';
  private admin: Admin | undefined;
  private probing: Promise<boolean> | undefined;
  private lastProbeAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly listeners: ((reason: string) => void)[] = [];
  private readonly probeTimeoutMs: number;
  private readonly probeEveryMs: number;
  private readonly requestWaitMs: number;
  /**
   * A client of its own, without retries: the service's client retries a refused connection with
   * backoff for seconds, and a probe should fail as fast as the connection does.
   */
  private readonly kafka: Kafka;

  constructor(
    private readonly connection: KafkaConnection,
    private readonly logger: Logger,
    private readonly options: BrokerWatchOptions,
  ) {
    this.probeTimeoutMs = options.probeTimeoutMs ?? 1000;
    this.probeEveryMs = options.probeEveryMs ?? 1000;
    this.requestWaitMs = options.requestWaitMs ?? 200;
    const { brokers, clientId, security } = connection.settings;
    this.kafka = new Kafka({ clientId: `${clientId}-probe`, brokers, ...security, connectionTimeout: this.probeTimeoutMs, retry: { retries: 0 }, logLevel: logLevel.NOTHING });
  }

  /** Called when the broker is found down: requests waiting on it can be answered now. */
  onDown(listener: (reason: string) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Whether a request may go to the broker now. While it is down, the answer is at most
   * `recentMs` old: an older one is refreshed by a probe first.
   */
  async available(recentMs = 250): Promise<boolean> {
    if (this.downSince === undefined) return true;
    if (Date.now() - this.lastProbeAt < recentMs) return false;
    const waited = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), this.requestWaitMs).unref());
    return Promise.race([this.probe(), waited]);
  }

  /** Something failed or stalled: probe now, and count the broker down if it does not answer. */
  suspect(cause: unknown): void {
    if (this.downSince !== undefined) return;
    void this.probe().then((up) => {
      if (!up) this.logger.warn({ cause: describe(cause) }, 'message broker unavailable: answering 503 until it is back');
    });
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    void this.admin?.disconnect().catch(() => undefined);
    this.admin = undefined;
  }

  private probe(): Promise<boolean> {
    this.probing ??= this.probeOnce().finally(() => {
      this.probing = undefined;
    });
    return this.probing;
  }

  private async probeOnce(): Promise<boolean> {
    this.lastProbeAt = Date.now();
    try {
      await withTimeout(this.metadata(), this.probeTimeoutMs);
      if (this.downSince !== undefined) {
        this.logger.info({ downForMs: Date.now() - this.downSince }, 'message broker reachable again');
        this.downSince = undefined;
        clearInterval(this.timer);
        this.timer = undefined;
      }
      return true;
    } catch (error) {
      this.reason = describe(error);
      // A fresh client next time: one whose connection broke can keep failing after the broker is back.
      void this.admin?.disconnect().catch(() => undefined);
      this.admin = undefined;
      if (this.downSince === undefined) {
        this.downSince = Date.now();
        this.timer = setInterval(() => void this.probe(), this.probeEveryMs);
        this.timer.unref();
        for (const listener of this.listeners) listener(this.reason);
      }
      return false;
    }
  }

  private async metadata(): Promise<void> {
    this.admin ??= this.kafka.admin({ retry: { retries: 0 } });
    await this.admin.connect();
    await this.admin.fetchTopicMetadata({ topics: [this.connection.topic(this.options.probeTopic)] });
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
