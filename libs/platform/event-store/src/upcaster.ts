/**
 * Turns an event stored under an old schema version into the next version. Stored events are never
 * rewritten; every read goes through the chain, so deciders and projections see only current shapes.
 */
export interface Upcaster {
  type: string;
  fromVersion: number;
  upcast(data: unknown): unknown;
}

export function upcast(
  upcasters: readonly Upcaster[],
  event: { type: string; schemaVersion: number; data: unknown },
): { schemaVersion: number; data: unknown } {
  let { schemaVersion, data } = event;
  for (;;) {
    const next = upcasters.find((u) => u.type === event.type && u.fromVersion === schemaVersion);
    if (!next) return { schemaVersion, data };
    data = next.upcast(data);
    schemaVersion += 1;
  }
}

/** Whether an event stored as `type` at `schemaVersion` is read as another shape (an upcaster starts there). */
export function isUpcast(upcasters: readonly Upcaster[], type: string, schemaVersion: number): boolean {
  return upcasters.some((u) => u.type === type && u.fromVersion === schemaVersion);
}
