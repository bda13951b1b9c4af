import { eventually } from '@seed/platform-testing';

/** One logical message as the SMSC simulator's inspection API shows it (tools/smsc-simulator/README.md). */
export interface SmscMessage {
  messageId: string;
  messageIds: string[];
  systemId: string;
  serviceType: string;
  source: string;
  sourceTon: number;
  sourceNpi: number;
  destination: string;
  destTon: number;
  destNpi: number;
  dataCoding: number;
  esmClass: number;
  registeredDelivery: number;
  parts: number;
  partsReceived: number;
  complete: boolean;
  text: string;
  receivedAt: string;
  receipt: { state: string; sentAt: string | null; acknowledged: boolean } | null;
  receipts: { messageId: string; state: string; messageState: number; attempts: number; acknowledged: boolean; abandoned: boolean }[];
}

export interface SmscStats {
  submits: number;
  accepted: number;
  rejected: number;
  throttled: number;
  windowFull: number;
  dropped: number;
  receiptsSent: number;
  receiptsAcked: number;
  binds: number;
  boundSessions: number;
  receiptsQueued: number;
  receiptsInFlight: number;
  messagesStored: number;
}

/** A JSON call to the simulator's inspection API at `baseUrl` that must succeed. */
export function simulatorCall(baseUrl: string) {
  return async <T>(path: string, method = 'GET', body?: unknown): Promise<T> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`simulator ${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
    return JSON.parse(text) as T;
  };
}

/** Client of the simulator's HTTP inspection API at `baseUrl` (a stack's `smscUrl`). */
export function smsc(baseUrl: string) {
  const call = simulatorCall(baseUrl);
  /** Every message the simulator received for this destination, oldest first. */
  const messages = async (destination: string): Promise<SmscMessage[]> =>
    (await call<{ messages: SmscMessage[] }>(`/messages?destination=${encodeURIComponent(destination)}`)).messages;
  return {
    messages,
    /** Everything received (up to `limit`), oldest first. */
    async all(limit = 100_000): Promise<SmscMessage[]> {
      return (await call<{ messages: SmscMessage[] }>(`/messages?limit=${limit}`)).messages;
    },
    stats: () => call<SmscStats>('/stats'),
    /** `PUT /config` with the README's keys; returns the new settings. */
    configure: (patch: Record<string, unknown>) => call<Record<string, unknown>>('/config', 'PUT', patch),
    /** Waits for exactly one complete message to `destination` and returns it. */
    async only(destination: string, timeoutMs = 15_000): Promise<SmscMessage> {
      const found = await eventually(async () => {
        const received = await messages(destination);
        return received.length > 0 && received.every((m) => m.complete) ? received : undefined;
      }, timeoutMs);
      expect(found).toHaveLength(1);
      return found[0] as SmscMessage;
    },
  };
}
