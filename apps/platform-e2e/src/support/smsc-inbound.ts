import { simulatorCall } from './smsc';

/** One deliver_sm the SMSC simulator sent for `POST /inbound`, and the answer it got (tools/smsc-simulator/README.md). */
export interface InboundDeliveryView {
  part: number;
  reason: 'first' | 'duplicate' | 'resend' | 'redelivery';
  sequenceNumber: number;
  session: { id: number; systemId: string; bindType: string | null; remote: string };
  sentAt: string;
  response: { status: number; receivedAt: string; lost: boolean } | null;
}

/** A mobile-originated message as the simulator's `/inbound` shows it, with the fields the tests read. */
export interface InboundView {
  id: string;
  source: string;
  destination: string;
  text: string;
  deliveries: InboundDeliveryView[];
  acknowledged: boolean;
}

export interface InboundStats {
  inboundSent: number;
  inboundRedelivered: number;
  inboundQueued: number;
  inboundAwaitingResponse: number;
}

/** The simulator's mobile-originated side at `baseUrl` (a stack's `smscUrl`): originate, look, count. */
export function smscInbound(baseUrl: string) {
  const call = simulatorCall(baseUrl);
  return {
    /** One message, sent at once; throws on anything but 201 (409: no session bound to receive). */
    originate: (message: { source: string; destination: string; text: string } & Record<string, unknown>) => call<InboundView>('/inbound', 'POST', message),
    view: (id: string) => call<InboundView>(`/inbound/${encodeURIComponent(id)}`),
    stats: () => call<InboundStats>('/stats'),
  };
}
