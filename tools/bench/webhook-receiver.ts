// The customer's endpoint in the benchmarks: a local HTTP server that answers at once and notes
// when each callback arrived. It understands the platform's delivery-status webhook (a JSON body
// with payload.status.state), its inbound SMS webhook (state `inbound`, `ref` the text, so that a
// run can check every text once) and Kannel's dlr-url (a GET with the state in the query).
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

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
  refused: number;
  close(): Promise<void>;
}

/** Kannel's DLR types (dlr-mask bits): 1 delivered, 2 failed, 4 buffered, 8 SMSC accepted, 16 SMSC rejected. */
const KANNEL_STATES: Record<string, string> = { '1': 'delivered', '2': 'undelivered', '4': 'buffered', '8': 'sent', '16': 'rejected' };

function parse(req: IncomingMessage, body: string): Callback {
  const url = new URL(req.url ?? '/', 'http://receiver');
  const run = url.pathname.split('/')[1] ?? '';
  if (req.method === 'GET') {
    return { run, ref: url.searchParams.get('i') ?? '', state: KANNEL_STATES[url.searchParams.get('type') ?? ''] ?? 'unknown', at: Date.now(), eventAt: NaN };
  }
  const webhook = JSON.parse(body) as
    | { eventType: 'inbound_message_received'; payload: { body: string; timestamp: string } }
    | { eventType: 'outbound_message_status_changed'; payload: { umid: string; status: { state: string; timestamp: string } } };
  if (webhook.eventType === 'inbound_message_received') {
    return { run, ref: webhook.payload.body, state: 'inbound', at: Date.now(), eventAt: Date.parse(webhook.payload.timestamp) };
  }
  const { umid, status } = webhook.payload;
  return { run, ref: umid, state: status.state, at: Date.now(), eventAt: Date.parse(status.timestamp) };
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const receiver: WebhookReceiver = {
    port: 0,
    accepting: true,
    onCallback: () => undefined,
    refused: 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
  const server = createServer((req, res) => {
    if (!receiver.accepting) {
      receiver.refused++;
      req.resume();
      res.writeHead(503).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        receiver.onCallback(parse(req, Buffer.concat(chunks).toString('utf8')));
        res.writeHead(200).end();
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  receiver.port = (server.address() as AddressInfo).port;
  return receiver;
}
