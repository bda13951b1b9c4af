// The customer's endpoint in the benchmarks: the receiver of the end-to-end tests
// (libs/platform/testing's WebhookReceiver, keeping nothing), read as callbacks. It understands the
// platform's delivery-status webhook (a JSON body with payload.status.state), its inbound SMS webhook
// (state `inbound`, `ref` the text, so that a run can check every text once) and Kannel's dlr-url (a
// GET with the state in the query).
import { WebhookReceiver as Receiver, type ReceivedWebhook } from '@seed/platform-testing';

export interface Callback {
  /** Which run it belongs to: the path's first segment (`/platform-3/...` -> `platform-3`). */
  run: string;
  /** The message's own reference: the platform's umid, or Kannel's `i` query parameter. */
  ref: string;
  state: string;
  at: number;
  /** The platform's status timestamp (when the change happened); NaN for Kannel's callbacks. */
  eventAt: number;
}

export interface WebhookReceiver {
  port: number;
  /** While false, every request is answered 503 (the customer's outage). */
  accepting: boolean;
  /** Called for each callback accepted with 2xx; cheap, in the request's own turn. */
  onCallback: (callback: Callback) => void;
  /** Requests refused while `accepting` was false. */
  readonly refused: number;
  close(): Promise<void>;
}

/** Kannel's DLR types (dlr-mask bits): 1 delivered, 2 failed, 4 buffered, 8 SMSC accepted, 16 SMSC rejected. */
const KANNEL_STATES: Record<string, string> = { '1': 'delivered', '2': 'undelivered', '4': 'buffered', '8': 'sent', '16': 'rejected' };

export function callbackOf(request: ReceivedWebhook): Callback {
  const url = new URL(request.path || '/', 'http://receiver');
  const run = url.pathname.split('/')[1] ?? '';
  const at = request.at;
  if (request.method === 'GET') {
    return { run, ref: url.searchParams.get('i') ?? '', state: KANNEL_STATES[url.searchParams.get('type') ?? ''] ?? 'unknown', at, eventAt: NaN };
  }
  const webhook = JSON.parse(request.body) as
    | { eventType: 'inbound_message_received'; payload: { body: string; timestamp: string } }
    | { eventType: 'outbound_message_status_changed'; payload: { umid: string; status: { state: string; timestamp: string } } };
  if (webhook.eventType === 'inbound_message_received') {
    return { run, ref: webhook.payload.body, state: 'inbound', at, eventAt: Date.parse(webhook.payload.timestamp) };
  }
  const { umid, status } = webhook.payload;
  return { run, ref: umid, state: status.state, at, eventAt: Date.parse(status.timestamp) };
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const receiver = await Receiver.start(0, { keep: false, keepAliveTimeoutMs: 60_000 });
  let accepting = true;
  const callbacks: WebhookReceiver = {
    port: receiver.port,
    get accepting() {
      return accepting;
    },
    set accepting(value: boolean) {
      accepting = value;
      receiver.behave(value ? {} : { fail: Number.POSITIVE_INFINITY, failStatus: 503 });
    },
    onCallback: () => undefined,
    get refused() {
      return receiver.failed;
    },
    close: () => receiver.close(),
  };
  receiver.onAccepted = (request) => callbacks.onCallback(callbackOf(request));
  return callbacks;
}
