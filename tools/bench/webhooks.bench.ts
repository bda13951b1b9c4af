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
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pino from 'pino';
import { kafkaClientOptions } from '@seed/platform-config';
import { KafkaConnection, MessageProducer } from '@seed/platform-kafka';
import { freePortBlock, removeStackData, testKeyring, waitForStackReady } from '@seed/platform-testing';
import { SMS_BATCH_EVENT_TOPIC, type MessageRef } from '@seed/sms-batch-contracts';
import { cpuSecondsOf, json } from './bench-support';

const env = process.env;
const source = env['BENCH_SOURCE'] === 'synthetic' ? 'synthetic' : 'stack';
const messages = Number(env['BENCH_MESSAGES'] ?? 5000);
const runs = Number(env['BENCH_RUNS'] ?? 2);
const root = join(__dirname, '../../..');

interface Receipt {
  at: number;
  eventAt: number;
}

/** The customer's endpoint: answers 200 at once and notes when each webhook arrived. */
async function startReceiver(): Promise<{ port: number; receipts: Receipt[]; close: () => Promise<void> }> {
  const receipts: Receipt[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { payload: { status: { timestamp: string } } };
      receipts.push({ at, eventAt: Date.parse(body.payload.status.timestamp) });
      res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    receipts,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

interface OwnStack {
  messagingUrl: string;
  adminUrl: string;
  adminToken: string;
  topicPrefix: string;
  pid: number | undefined;
  stop: () => Promise<void>;
}

/** The platform from dist/ through tools/scripts/stack.mjs, on free ports with prefixes of its own. */
async function startOwnStack(): Promise<OwnStack> {
  const base = await freePortBlock();
  const name = `benchwh${randomBytes(4).toString('hex')}`;
  const adminToken = randomBytes(24).toString('hex');
  const childEnv: Record<string, string> = {
    PATH: env['PATH'] ?? '',
    DATABASE_URL: env['DATABASE_URL'] ?? '',
    KAFKA_BROKERS: env['KAFKA_BROKERS'] ?? '',
    KAFKA_TOPIC_PREFIX: `${name}.`,
    DATABASE_SCHEMA_PREFIX: `${name}_`,
    ADMIN_TOKEN: adminToken,
    MESSAGING_API_PORT: String(base),
    AGENT_API_PORT: String(base + 1),
    ADMIN_API_PORT: String(base + 2),
    HTTP_HOST: '127.0.0.1',
    SMSC_PORT: String(base + 3),
    SMSC_HTTP_PORT: String(base + 4),
    HEALTH_PORT_BASE: String(base + 10),
    KAFKAJS_NO_PARTITIONER_WARNING: '1',
    LOG_LEVEL: 'warn',
    MESSAGE_SEALING_KEYS: testKeyring(),
    VERIFY_CODE_HASH_KEYS: testKeyring(),
    AGENT_TOKEN_SIGNING_KEYS: testKeyring(),
    WEBHOOK_SECRET_SEALING_KEYS: testKeyring(),
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    SMSC_RECEIPT_DELAY_MS: '0',
    STACK_LOG: join(root, `.local/bench-${name}.`),
    ...(env['STACK_NODE_FLAGS'] ? { STACK_NODE_FLAGS: env['STACK_NODE_FLAGS'] } : {}),
    // The dispatcher's settings given to the bench (e.g. WEBHOOK_ENDPOINT_CONCURRENCY) go to its stack.
    ...Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[0].startsWith('WEBHOOK_') && e[1] !== undefined)),
  };
  const child = spawn(process.execPath, [join(root, 'tools/scripts/stack.mjs')], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  await waitForStackReady(child, join(root, `.local/bench-${name}.*`));
  return {
    messagingUrl: `http://127.0.0.1:${base}`,
    adminUrl: `http://127.0.0.1:${base + 2}`,
    adminToken,
    topicPrefix: `${name}.`,
    pid: child.pid,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      // BENCH_KEEP=1 keeps the schemas and topics for a look at the dispatcher's tables afterwards.
      if (env['BENCH_KEEP'] !== '1') await removeStackData(name);
      else console.log(`[bench] kept schemas ${name}_* and topics ${name}.*`);
    },
  };
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
  const receiver = await startReceiver();
  let own: OwnStack | undefined;
  const given = env['MESSAGING_URL'] && env['ADMIN_URL'];
  if (!given) {
    console.log(`[bench] starting a stack (loopback allowed for webhooks), source: ${source}`);
    own = await startOwnStack();
  }
  const messagingUrl = own?.messagingUrl ?? (env['MESSAGING_URL'] as string);
  const adminUrl = own?.adminUrl ?? (env['ADMIN_URL'] as string);
  const adminToken = own?.adminToken ?? env['ADMIN_TOKEN'] ?? readFileSync(join(root, '.local/admin-token'), 'utf8').trim();
  const topicPrefix = own?.topicPrefix ?? env['KAFKA_TOPIC_PREFIX'] ?? '';
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
      receiver.receipts.length = 0;
      const expected = count * 2;
      const cpuBefore = cpuSecondsOf('dist/apps/webhook-dispatcher/src/main.js', own?.pid);
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
      while (receiver.receipts.length < expected && Date.now() - lastProgress < 30_000) {
        await new Promise((r) => setTimeout(r, 20));
        if (receiver.receipts.length > seen) [seen, lastProgress] = [receiver.receipts.length, Date.now()];
      }
      const cpu = cpuSecondsOf('dist/apps/webhook-dispatcher/src/main.js', own?.pid) - cpuBefore;
      const receipts = [...receiver.receipts];
      const first = Math.min(...receipts.map((r) => r.at));
      const last = Math.max(...receipts.map((r) => r.at));
      const firstEvent = Math.min(...receipts.map((r) => r.eventAt));
      const latencies = receipts.map((r) => r.at - r.eventAt).sort((a, b) => a - b);
      const result = {
        run: label,
        source,
        webhooks: receipts.length,
        msFromRequestToLast: last - started,
        msFromFirstEventToLast: last - firstEvent,
        deliveriesPerSecond: Math.round((receipts.length / Math.max(1, last - firstEvent)) * 1000),
        deliveriesPerSecondAtReceiver: Math.round((receipts.length / Math.max(1, last - first)) * 1000),
        latencyMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies[latencies.length - 1] },
        dispatcherCpuSeconds: Number(cpu.toFixed(2)),
      };
      console.log(JSON.stringify(result));
      return result;
    };

    await runOnce(Math.min(1000, messages), 'warm-up');
    for (let i = 1; i <= runs; i++) await runOnce(messages, `run ${i}`);
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
