// `npm run bench:webhooks`: delivery-status webhooks to a local receiver. Reports deliveries/s at
// the receiver and the latency from each status change (its event's occurredAt, the body's
// status.timestamp) to its receipt, p50/p99, and the CPU the dispatcher used.
// Two sources of the 10,000 status changes (BENCH_SOURCE):
//   stack      (default) 5,000 messages in one batch through the whole platform: each becomes
//              `sent` and `delivered` (the SMSC simulator's receipts), 10,000 webhooks.
//   synthetic  10,000 MessageSent/MessageDelivered events for 5,000 messages produced straight
//              onto the stack's sms-batch topic: the dispatcher alone, without sms-batch's cost.
// The bench starts a stack of its own from dist/ (own ports, topic and schema prefix, loopback
// allowed for webhooks) and stops it at the end; with MESSAGING_URL and ADMIN_URL (and
// KAFKA_TOPIC_PREFIX for `synthetic`) it uses a running `npm start` instead.
// Settings: BENCH_SOURCE, BENCH_MESSAGES (5000), BENCH_RUNS (2), BENCH_KEEP, MESSAGING_URL, ADMIN_URL, ADMIN_TOKEN;
// WEBHOOK_* variables are passed to the stack the bench starts.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { kafkaClientOptions } from '@seed/platform-config';
import { KafkaConnection, MessageProducer } from '@seed/platform-kafka';
import { startStack, type RunningStack } from '@seed/platform-testing';
import { SMS_BATCH_EVENT_TOPIC, type MessageRef } from '@seed/sms-batch-contracts';
import { cpuSecondsOf, json, STACK_PROCESSES } from './bench-support';
import { runOf, startBenchmark } from './runner';
import { startWebhookReceiver } from './webhook-receiver';

const env = process.env;
const source = env['BENCH_SOURCE'] === 'synthetic' ? 'synthetic' : 'stack';
const messages = Number(env['BENCH_MESSAGES'] ?? 5000);
const runs = Number(env['BENCH_RUNS'] ?? 2);
const root = join(__dirname, '../../..');

interface Receipt {
  at: number;
  eventAt: number;
}

/**
 * The platform from dist/ as the e2e tests start it whole (tools/scripts/stack.mjs on free ports with
 * prefixes of its own), quieter, with loopback webhooks and immediate receipts.
 */
function startOwnStack(): Promise<RunningStack> {
  return startStack(
    {
      LOG_LEVEL: 'warn',
      DATABASE_POOL_SIZE: '10',
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      SMSC_RECEIPT_DELAY_MS: '0',
      // The dispatcher's settings given to the bench (e.g. WEBHOOK_ENDPOINT_CONCURRENCY) go to its stack.
      ...Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[0].startsWith('WEBHOOK_') && e[1] !== undefined)),
    },
    // BENCH_KEEP=1 keeps the schemas and topics for a look at the dispatcher's tables afterwards.
    { keepData: env['BENCH_KEEP'] === '1' },
  );
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

async function syntheticEvents(producer: MessageProducer, accountId: string, subAccountId: string, count: number): Promise<void> {
  const batchId = randomUUID();
  const refs: MessageRef[] = Array.from({ length: count }, (_, i) => ({
    umid: randomUUID(),
    batchId,
    clientBatchId: null,
    clientMessageId: `bench-${i}`,
    accountId,
    subAccountId,
    destination: `447911${String(i).padStart(6, '0')}`,
    source: 'BENCH',
    smsCount: 1,
    dlrCallbackUrl: null,
  }));
  const envelope = (ref: MessageRef, type: string, position: number, data: object) => {
    const now = new Date().toISOString();
    return {
      key: `sms-message-${ref.umid}`,
      value: { eventId: randomUUID(), type, schemaVersion: 1, streamId: `sms-message-${ref.umid}`, streamPosition: position, occurredAt: now, correlationId: 'bench', causationId: null, traceparent: null, data: { ...ref, ...data } },
      headers: { 'message-type': type },
    };
  };
  // Sent for all, then delivered for all, as a carrier's receipts follow its submits.
  for (const [type, position] of [['MessageSent', 2], ['MessageDelivered', 3]] as const) {
    for (let i = 0; i < refs.length; i += 1000) {
      const chunk = refs.slice(i, i + 1000).map((ref) =>
        envelope(ref, type, position, type === 'MessageSent' ? { carrierMessageIds: ['1'], sentAt: new Date().toISOString() } : { receipts: [], deliveredAt: new Date().toISOString() }),
      );
      await producer.send(SMS_BATCH_EVENT_TOPIC, chunk);
    }
  }
}

async function main(): Promise<void> {
  const bench = startBenchmark(`webhooks-${source}`, `BENCH_SOURCE=${source} npm run bench:webhooks`, { source, messages, runs, warmupMessages: Math.min(1000, messages) });
  const receiver = await startWebhookReceiver();
  const receipts: Receipt[] = [];
  receiver.onCallback = ({ at, eventAt }) => receipts.push({ at, eventAt });
  let own: RunningStack | undefined;
  const given = env['MESSAGING_URL'] && env['ADMIN_URL'];
  if (!given) {
    console.log(`[bench] starting a stack (loopback allowed for webhooks), source: ${source}`);
    own = await startOwnStack();
  }
  const messagingUrl = own?.messagingUrl ?? (env['MESSAGING_URL'] as string);
  const adminUrl = own?.adminUrl ?? (env['ADMIN_URL'] as string);
  const adminToken = own?.adminToken ?? env['ADMIN_TOKEN'] ?? readFileSync(join(root, '.local/admin-token'), 'utf8').trim();
  const topicPrefix = own?.topicPrefix ?? env['KAFKA_TOPIC_PREFIX'] ?? '';
  if (own && env['BENCH_KEEP'] === '1') console.log(`[bench] keeping schemas ${own.schemaPrefix}* and topics ${own.topicPrefix}*`);
  const admin = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
  const { brokers, security } = kafkaClientOptions(env);
  const connection = new KafkaConnection({ brokers, clientId: 'bench-webhooks', prefix: topicPrefix, security }, pino({ level: 'warn' }));
  const producer = new MessageProducer(connection);
  try {
    const accountId = `benchwh${randomUUID().slice(0, 8)}`;
    const account = await json<{ subAccountIds: string[]; apiKey: string }>(`${adminUrl}/admin/v1/accounts`, { method: 'POST', headers: admin, body: JSON.stringify({ accountId }) });
    const subAccountId = account.subAccountIds[0] as string;
    await json(`${adminUrl}/admin/v1/accounts/${accountId}/webhooks`, { method: 'PUT', headers: admin, body: JSON.stringify({ dlrCallbackUrl: `http://127.0.0.1:${receiver.port}/dlr` }) });

    const runOnce = async (count: number, label: string) => {
      receipts.length = 0;
      const expected = count * 2;
      const cpuBefore = cpuSecondsOf(STACK_PROCESSES['webhook-dispatcher'] as string, own?.launcherPid);
      const started = Date.now();
      if (source === 'synthetic') {
        await syntheticEvents(producer, accountId, subAccountId, count);
      } else {
        await json(`${messagingUrl}/sms/v1/${subAccountId}/many`, {
          method: 'POST',
          headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ template: { text: 'Webhook bench', source: 'BENCH' }, messages: Array.from({ length: count }, (_, i) => ({ destination: `+447911${String(i).padStart(6, '0')}` })) }),
        });
      }
      // Waits for all of them, or until nothing arrived for 30 s (then the figures show what came).
      let seen = 0;
      let lastProgress = Date.now();
      while (receipts.length < expected && Date.now() - lastProgress < 30_000) {
        await new Promise((r) => setTimeout(r, 20));
        if (receipts.length > seen) [seen, lastProgress] = [receipts.length, Date.now()];
      }
      const cpu = cpuSecondsOf(STACK_PROCESSES['webhook-dispatcher'] as string, own?.launcherPid) - cpuBefore;
      const got = [...receipts];
      const first = Math.min(...got.map((r) => r.at));
      const last = Math.max(...got.map((r) => r.at));
      const firstEvent = Math.min(...got.map((r) => r.eventAt));
      const latencies = got.map((r) => r.at - r.eventAt).sort((a, b) => a - b);
      const result = {
        webhooks: got.length,
        msFromRequestToLast: last - started,
        msFromFirstEventToLast: last - firstEvent,
        deliveriesPerSecond: Math.round((got.length / Math.max(1, last - firstEvent)) * 1000),
        deliveriesPerSecondAtReceiver: Math.round((got.length / Math.max(1, last - first)) * 1000),
        latencyMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies[latencies.length - 1] },
      };
      return { label, result, cpuSeconds: { 'webhook-dispatcher': Number(cpu.toFixed(2)) } };
    };

    await runOnce(Math.min(1000, messages), 'warm-up');
    for (let i = 1; i <= runs; i++) {
      const { label, result, cpuSeconds } = await runOnce(messages, `run ${i}`);
      bench.run(runOf(result, { label, cpuSeconds }));
    }
    bench.finish();
  } finally {
    await producer.disconnect();
    await receiver.close();
    await own?.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
