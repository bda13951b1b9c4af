import { Gauge } from 'prom-client';

/** One value of a gauge and its labels. */
export interface Reading<L extends string> {
  labels: Partial<Record<L, string | number>>;
  value: number;
}

export type ReadingSource<L extends string> = () => Promise<readonly Reading<L>[] | undefined>;

/**
 * A gauge whose values are read at scrape time from what the running service attached. The gauge
 * itself exists once per process (prom-client's registry refuses a name twice), while what it reads
 * belongs to a component with a life of its own (a queue, a connection pool): it attaches its source
 * when it starts and detaches it when it stops. Nothing attached, or a reading that failed: no values.
 */
export class SampledGauge<L extends string = never> {
  private source: ReadingSource<L> | undefined;
  readonly gauge: Gauge<L>;

  constructor(config: { name: string; help: string; labelNames?: readonly L[] }) {
    const read = (): Promise<readonly Reading<L>[] | undefined> => this.source?.() ?? Promise.resolve(undefined);
    this.gauge = new Gauge<L>({
      name: config.name,
      help: config.help,
      labelNames: config.labelNames ?? [],
      async collect() {
        const readings = await read();
        this.reset();
        for (const { labels, value } of readings ?? []) this.set(labels, value);
      },
    });
  }

  /** Reads from `source` from now on; the function returned detaches it (if still the one attached). */
  attach(source: ReadingSource<L>): () => void {
    this.source = source;
    return () => {
      if (this.source === source) this.source = undefined;
    };
  }
}
