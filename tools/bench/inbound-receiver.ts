// The customer's endpoint in `npm run bench:inbound`: like webhook-receiver.ts, a local HTTP server
// that answers at once and notes when each callback arrived, but for the platform's
// `inbound_message_received` webhooks, whose body carries the text instead of a status (the
// delivery-status receiver answers them 400). `ref` is the text, so a run can check every text once.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Callback, WebhookReceiver } from './webhook-receiver';

interface InboundWebhook {
  eventType: string;
  payload: { umid: string; body: string; timestamp: string };
}

/** `state` is always `inbound`; `eventAt` is when sms-batch recorded the message (the payload's timestamp). */
export async function startInboundReceiver(): Promise<WebhookReceiver> {
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
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const webhook = JSON.parse(Buffer.concat(chunks).toString('utf8')) as InboundWebhook;
        if (webhook.eventType !== 'inbound_message_received') throw new Error(`unexpected ${webhook.eventType}`);
        const run = new URL(req.url ?? '/', 'http://receiver').pathname.split('/')[1] ?? '';
        const callback: Callback = { run, ref: webhook.payload.body, state: 'inbound', at: Date.now(), eventAt: Date.parse(webhook.payload.timestamp) };
        receiver.onCallback(callback);
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
