// `npm run bench:floors`: the least CPU four things the delivery path must do per message cost on this
// machine, each alone, with none of the platform around it, so that `npm run bench:e2e`'s CPU per
// message can be read against what no design of these guarantees can go below:
//   webhooks  posting a message's two status webhooks (sent, delivered), as a customer receives them:
//             the body of the contract (DeliveryStatusWebhook), signed as the dispatcher signs it
//             (HMAC-SHA256 of "<t>.<body>", docs/webhooks.md), POSTed with undici
//             over keep-alive connections, WEBHOOK_ENDPOINT_CONCURRENCY (32) in flight, to the
//             benchmarks' receiver in a process of its own (its CPU is not counted, as in bench:e2e).
//             Kannel's smsbox makes the same two callbacks per message with `dlr-mask=9`.
//   storage   storing a message's four events (MessageQueued, MessageRouted, MessageSent,
//             MessageDelivered, with the bodies sms-batch writes) through the event store's append:
//             the queued events of 10,000 messages in one transaction, as a batch is accepted, the
//             others in transactions of 100 messages, as the lifecycle writer flushes. Counted: this
//             process and every PostgreSQL process (nothing else may use the database meanwhile).
//   kafka     publishing the four events on a topic as the outbox relay does and reading them back
//             once as the webhook dispatcher does (./kafka-floor.ts); this process and the broker.
//   smpp      submitting each message to the SMSC simulator and answering its receipt, SMPP_WINDOW
//             (100) submits in flight on one bind, with the `smpp` library (./smpp-floor.ts).
// Reports CPU seconds per 10,000 messages for each, and their sum: what bench:e2e's CPU per message
// cannot go below with every event stored and every status change posted.
// Settings: BENCH_MESSAGES (10000), BENCH_RUNS (3), WEBHOOK_ENDPOINT_CONCURRENCY (32), SMPP_WINDOW
// (100), BENCH_KAFKA_RECORDS_A_SEND (2000), DATABASE_URL and KAFKA_BROKERS (from .local/infra.env
// through run-dist).
import { fork } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { Agent } from 'undici';
import { EventStore, eventStoreSchema, runMigrations } from '@seed/platform-event-store';
import { dropSchema, openTestDataSource, uniqueName } from '@seed/platform-testing';
import type { DeliveryStatusWebhook } from '@seed/webhook-dispatcher-contracts';
import { cpuSecondsOf } from './bench-support';
import { startBenchmark } from './runner';
import { RECORDS_A_SEND, startKafkaFloor } from './kafka-floor';
import { startSmppFloor } from './smpp-floor';
import { startWebhookReceiver } from './webhook-receiver';

const env = process.env;
const messages = Number(env['BENCH_MESSAGES'] ?? 10_000);
const runs = Number(env['BENCH_RUNS'] ?? 3);
const inFlight = Number(env['WEBHOOK_ENDPOINT_CONCURRENCY'] ?? 32);
const smppWindow = Number(env['SMPP_WINDOW'] ?? 100);
const FLUSH_MESSAGES = 100;

/** A message as its events carry it (the fields of MessageRef). */
function refOf(i: number, batchId: string, receiverPort: number) {
  return {
    umid: randomUUID(),
    batchId,
    clientBatchId: null,
    clientMessageId: `m${i}`,
    accountId: 'floors',
    subAccountId: 'floors_hq',
    destination: `4477001${String(i).padStart(5, '0')}`,
    source: 'BENCH',
    smsCount: 1,
    dlrCallbackUrl: `http://127.0.0.1:${receiverPort}/floors/dlr`,
  };
}
type Ref = ReturnType<typeof refOf>;

const carrierIdOf = (i: number) => (0x3f2f0000 + i).toString(16);
const queued = (ref: Ref, i: number, at: string) => ({ type: 'MessageQueued', schemaVersion: 1, data: { ...ref, index: i, text: `Hello customer ${i}, your parcel arrives today.`, encoding: 'GSM7', scheduled: null, expiry: null, queuedAt: at } });
const routed = (ref: Ref, at: string) => ({ type: 'MessageRouted', schemaVersion: 1, data: { ...ref, routeId: null, carrierId: 'default', attempt: 1, price: null, outcome: 'handed-off', detail: null, routedAt: at } });
const sent = (ref: Ref, i: number, at: string) => ({ type: 'MessageSent', schemaVersion: 1, data: { ...ref, carrierId: 'default', carrierMessageIds: [carrierIdOf(i)], sentAt: at } });
const receipt = (i: number, at: string) => ({ carrierMessageId: carrierIdOf(i), stat: 'DELIVRD', err: '000', submitDate: '2611270957', doneDate: '2611270957', receivedAt: at, carrierId: 'default' });
const delivered = (ref: Ref, i: number, at: string) => ({ type: 'MessageDelivered', schemaVersion: 1, data: { ...ref, receipts: [receipt(i, at)], deliveredAt: at } });

const streamOf = (ref: Ref) => `message-${ref.umid}`;

/** The four events of each message, as the relay publishes them: stream, type and body as JSON text. */
function publishedOf(refs: Ref[]): { streamId: string; type: string; body: string }[] {
  const at = new Date().toISOString();
  return refs.flatMap((ref, i) =>
    [queued(ref, i, at), routed(ref, at), sent(ref, i, at), delivered(ref, i, at)].map((e) => ({ streamId: streamOf(ref), type: e.type, body: JSON.stringify(e.data) })),
  );
}
const cpuOfThisProcess = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
const per10k = (seconds: number) => Number(((seconds * 10_000) / messages).toFixed(2));

/** A status webhook's body, as docs/webhooks.md gives it. */
function webhookOf(ref: Ref, state: 'sent' | 'delivered', at: string): DeliveryStatusWebhook {
  const { umid, batchId, clientMessageId, clientBatchId, subAccountId, source, destination, smsCount } = ref;
  return {
    namespace: 'SMS',
    eventType: 'outbound_message_status_changed',
    description: 'Outbound message status changed',
    payload: { umid, batchId, clientMessageId, clientBatchId, subAccountId, source, destination, smsCount, status: { state, detail: state === 'sent' ? 'sent to carrier' : 'DELIVRD', timestamp: at, errorCode: null, errorMessage: null } },
  };
}

/** The webhooks of `refs`' sent and delivered changes, POSTed with at most `inFlight` at a time. */
async function postWebhooks(agent: Agent, port: number, refs: Ref[]): Promise<void> {
  const secret = 'whsec_floors_0123456789abcdef';
  const at = new Date().toISOString();
  const changes = refs.flatMap((ref) => [{ ref, state: 'sent' as const }, { ref, state: 'delivered' as const }]);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < changes.length; i = next++) {
      const { ref, state } = changes[i]!;
      const body = JSON.stringify(webhookOf(ref, state, at));
      const t = Math.floor(Date.now() / 1000);
      const signature = `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
      const response = await agent.request({
        origin: `http://127.0.0.1:${port}`,
        path: '/floors/dlr',
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'seed-webhooks/1', 'x-seed-signature': signature, 'x-seed-delivery-id': randomUUID(), 'x-seed-attempt': '1' },
        body,
      });
      for await (const _chunk of response.body) {
        // read to its end so the connection is reused
      }
      if (response.statusCode !== 200) throw new Error(`receiver answered ${response.statusCode}`);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
}

/** The receiver, in a child process of its own: its CPU is the customer's, not the sender's. */
async function startReceiverProcess(): Promise<{ port: number; stop: () => void }> {
  const child = fork(__filename, ['--receiver'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve(Number(m)));
    child.once('exit', (code) => reject(new Error(`receiver exited (${code})`)));
  });
  return { port, stop: () => child.kill() };
}

async function storeEvents(store: EventStore, ds: Awaited<ReturnType<typeof openTestDataSource>>, refs: Ref[]): Promise<void> {
  const at = () => new Date().toISOString();
  const meta = (correlationId: string) => ({ correlationId, causationId: null, traceparent: null, occurredAt: at() });
  const accepted = at();
  await ds.transaction((tx) => store.append(tx, refs.map((ref, i) => ({ streamId: streamOf(ref), expectedVersion: 0, events: [queued(ref, i, accepted)] })), meta(randomUUID())));
  for (let from = 0; from < refs.length; from += FLUSH_MESSAGES) {
    const flush = refs.slice(from, from + FLUSH_MESSAGES);
    const now = at();
    await ds.transaction((tx) => store.append(tx, flush.map((ref, j) => ({ streamId: streamOf(ref), expectedVersion: 1, events: [routed(ref, now), sent(ref, from + j, now)] })), meta('carrier')));
  }
  for (let from = 0; from < refs.length; from += FLUSH_MESSAGES) {
    const flush = refs.slice(from, from + FLUSH_MESSAGES);
    const now = at();
    await ds.transaction((tx) => store.append(tx, flush.map((ref, j) => ({ streamId: streamOf(ref), expectedVersion: 3, events: [delivered(ref, from + j, now)] })), meta('carrier')));
  }
}

async function main(): Promise<void> {
  const bench = startBenchmark('floors', 'npm run bench:floors', { messages, runs, inFlight, flushMessages: FLUSH_MESSAGES, smppWindow, kafkaRecordsASend: RECORDS_A_SEND });
  const receiver = await startReceiverProcess();
  const carrier = await startSmppFloor(smppWindow);
  const kafka = await startKafkaFloor();
  const agent = new Agent({ connections: inFlight });
  const ds = await openTestDataSource(4);
  const schema = uniqueName('bench_floors');
  const store = new EventStore(schema);
  try {
    await runMigrations(ds, schema, eventStoreSchema);
    const batchOf = () => {
      const batchId = randomUUID();
      return Array.from({ length: messages }, (_, i) => refOf(i, batchId, receiver.port));
    };
    // Warm-up: JIT, connections, the table's first pages.
    await postWebhooks(agent, receiver.port, batchOf());
    await storeEvents(store, ds, batchOf());
    await carrier.exchange(messages);
    await kafka.publish(publishedOf(batchOf()));
    await kafka.read();
    for (let run = 1; run <= runs; run++) {
      const posting = batchOf();
      const webhooksFrom = cpuOfThisProcess();
      await postWebhooks(agent, receiver.port, posting);
      const webhooks = cpuOfThisProcess() - webhooksFrom;

      const storing = batchOf();
      const storageFrom = { node: cpuOfThisProcess(), postgres: cpuSecondsOf('postgres') };
      await storeEvents(store, ds, storing);
      const storageNode = cpuOfThisProcess() - storageFrom.node;
      const storagePostgres = cpuSecondsOf('postgres') - storageFrom.postgres;
      const smppFrom = cpuOfThisProcess();
      await carrier.exchange(messages);
      const smpp = cpuOfThisProcess() - smppFrom;
      const published = publishedOf(batchOf());
      const publishFrom = { node: cpuOfThisProcess(), broker: cpuSecondsOf('kafka\\.Kafka') };
      await kafka.publish(published);
      const readFrom = { node: cpuOfThisProcess(), broker: cpuSecondsOf('kafka\\.Kafka') };
      await kafka.read();
      const publishing = readFrom.node - publishFrom.node + readFrom.broker - publishFrom.broker;
      const reading = cpuOfThisProcess() - readFrom.node + cpuSecondsOf('kafka\\.Kafka') - readFrom.broker;
      const values = {
        'webhooks.cpuSecondsPer10k': per10k(webhooks),
        'storage.cpuSecondsPer10k': per10k(storageNode + storagePostgres),
        'storage.nodeCpuSecondsPer10k': per10k(storageNode),
        'storage.postgresCpuSecondsPer10k': per10k(storagePostgres),
        'smpp.cpuSecondsPer10k': per10k(smpp),
        'kafka.cpuSecondsPer10k': per10k(publishing + reading),
        'kafka.publishCpuSecondsPer10k': per10k(publishing),
        'kafka.readCpuSecondsPer10k': per10k(reading),
        'sum.cpuSecondsPer10k': per10k(webhooks + storageNode + storagePostgres + smpp + publishing + reading),
      };
      bench.run({ label: `run ${run}`, values });
    }
  } finally {
    await dropSchema(ds, schema).catch(() => undefined);
    await ds.destroy();
    await agent.close();
    receiver.stop();
    carrier.stop();
    await kafka.stop();
  }
  bench.finish();
}

if (process.argv[2] === '--receiver') {
  void startWebhookReceiver().then((r) => process.send?.(r.port));
} else {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
