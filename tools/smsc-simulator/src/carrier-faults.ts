import type { SimulatorConfig } from './simulator.config';

/**
 * Failures that tests switch on through the inspection API to break this carrier mid-batch (the
 * platform's failover must cope with each). The plain settings (refuseBinds, throttleAll,
 * temporaryErrorProbability) are read live from the configuration. A bind refusal can also run
 * until a deadline set by `POST /sessions/drop?refuseBindsMs=`, so that one call keeps the carrier
 * down for a while, with no second call needed to bring it back.
 */
export class CarrierFaults {
  private refuseBindsUntil = 0;

  constructor(
    private readonly config: { readonly current: SimulatorConfig },
    private readonly random: () => number,
    private readonly now: () => number = Date.now,
  ) {}

  refusesBinds(): boolean {
    return this.config.current.refuseBinds || this.now() < this.refuseBindsUntil;
  }

  /** What is left of a timed refusal; 0 when none runs (refuseBinds is not counted). */
  get bindRefusalRemainingMs(): number {
    return Math.max(0, this.refuseBindsUntil - this.now());
  }

  /** Replaces any timed refusal still running: the latest call says how long the carrier stays down. */
  refuseBindsFor(ms: number): Date {
    this.refuseBindsUntil = this.now() + ms;
    return new Date(this.refuseBindsUntil);
  }

  endTimedRefusal(): void {
    this.refuseBindsUntil = 0;
  }

  /** The status that answers a submit_sm otherwise accepted, or null to accept it. */
  temporaryError(): number | null {
    const { temporaryErrorProbability, temporaryErrorStatus } = this.config.current;
    return temporaryErrorProbability > 0 && this.random() < temporaryErrorProbability ? temporaryErrorStatus : null;
  }
}
