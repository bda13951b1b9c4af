// `npm run bench:backlog`: a customer's webhook endpoint is down until BENCH_BACKLOG (100,000)
// delivery-status webhooks wait for it, then comes back. Through the running `npm start` stack:
//   outage   the endpoint answers 503; BENCH_BACKLOG / 2 messages are sent to it in batches of
//            10,000 (each becomes `sent` and `delivered`: two webhooks), until every one waits;
//   recovery the endpoint answers 200 again; the backlog drains.
// All along, another account sends BENCH_OTHER_RATE (20) messages a second to a healthy endpoint of its
// own: its webhook latency (status change -> receipt) is reported for both phases.
// Reports the drain rate (deliveries/s from the first webhook the endpoint accepted to the last one,
// and from the moment it came back: the circuit breaker's cool-down, 30 s by default, comes first),
// duplicates, order violations (a `delivered` before that message's `sent`) and dead letters.
// Settings: BENCH_BACKLOG, BENCH_OTHER_RATE, MESSAGING_URL, ADMIN_URL, ADMIN_TOKEN, DATABASE_URL,
// DATABASE_SCHEMA_PREFIX.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'pg';
import { measuredProcesses } from '@seed/platform-testing';
import { cpuSecondsOf, json, percentile } from './bench-support';
import { runOf, startBenchmark } from './runner';
import { startWebhookReceiver, type Callback } from './webhook-receiver';

const root = join(__dirname, '../../..');
const env = process.env;
const backlog = Number(env['BENCH_BACKLOG'] ?? 100_000);
const otherRate = Number(env['BENCH_OTHER_RATE'] ?? 20);
const messagingUrl = env['MESSAGING_URL'] ?? 'http://127.0.0.1:3000';
const adminUrl = env['ADMIN_URL'] ?? 'http://127.0.0.1:3002';
const adminToken = env['ADMIN_TOKEN'] ?? readFileSync(join(root, '.local/admin-token'), 'utf8').trim();
const deliveries = `"${env['DATABASE_SCHEMA_PREFIX'] ?? ''}webhook_dispatcher".deliveries`;
// What the drain costs, in the order the results list it; how to find each is tools/stack/processes.json's.
const PROCESSES = measuredProcesses('sms-batch', 'webhook-dispatcher', 'postgres', 'kafka');
const BATCH = 10_000;

const admin = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };

async function account(name: string, callbackUrl: string): Promise<{ accountId: string; subAccountId: string; apiKey: string }> {
  const accountId = `${name}${Date.now().toString(36)}`;
  const created = await json<{ apiKey: string; subAccountIds: string[] }>(`${adminUrl}/admin/v1/accounts`, { method: 'POST', headers: admin, body: JSON.stringify({ accountId }) });
  await json(`${adminUrl}/admin/v1/accounts/${accountId}/webhooks`, { method: 'PUT', headers: admin, body: JSON.stringify({ dlrCallbackUrl: callbackUrl }) });
  return { accountId, subAccountId: created.subAccountIds[0] as string, apiKey: created.apiKey };
}

async function send(to: { subAccountId: string; apiKey: string }, count: number, offset: number, text: string): Promise<void> {
  const messages = Array.from({ length: count }, (_, i) => ({ destination: `+447700${String(100_000 + ((offset + i) % 900_000)).padStart(6, '0')}`, text: `${text} ${offset + i}` }));
  await json(`${messagingUrl}/sms/v1/${to.subAccountId}/many`, {
    method: 'POST',
    headers: { authorization: `Bearer ${to.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ template: { source: 'BENCH' }, messages }),
  });
}

const latencies = (list: Callback[]) => {
  const values = list.map((c) => c.at - c.eventAt);
  return { webhooks: values.length, p50: percentile(values, 50), p99: percentile(values, 99), max: percentile(values, 100) };
};

async function main(): Promise<void> {
  const bench = startBenchmark('backlog', 'npm run bench:backlog', { backlog, otherRate });
  // Two endpoints (two origins): the breaker and the concurrency limit are per endpoint.
  const receiver = await startWebhookReceiver();
  const healthy = await startWebhookReceiver();
  const pool = new Pool({ connectionString: env['DATABASE_URL'], max: 1 });
  const outaged = await account('backlog', `http://127.0.0.1:${receiver.port}/outaged/dlr`);
  const other = await account('flowing', `http://127.0.0.1:${healthy.port}/other/dlr`);
  // Counted in the endpoint's range of the due index (origin, next_attempt_at), once a second during
  // the outage only: a count over the whole table four times a second cost PostgreSQL more than the
  // dispatcher's own work. The drain is followed at the receiver.
  const waiting = async () =>
    Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${deliveries} WHERE origin = $1 AND state = 'pending'`, [`http://127.0.0.1:${receiver.port}`])).rows[0]?.n ?? 0);

  const outagedCallbacks: Callback[] = [];
  const otherCallbacks: { phase: string; callback: Callback }[] = [];
  let phase = 'outage';
  receiver.onCallback = (c) => outagedCallbacks.push(c);
  healthy.onCallback = (c) => otherCallbacks.push({ phase, callback: c });
  // The healthy account's steady trickle, a small batch every 250 ms.
  let streaming = true;
  let otherSent = 0;
  const stream = (async () => {
    const perTick = Math.max(1, Math.round(otherRate / 4));
    while (streaming) {
      const tick = Date.now();
      await send(other, perTick, otherSent, 'Flowing').catch((error: unknown) => console.error(`other account: ${String(error)}`));
      otherSent += perTick;
      await new Promise((r) => setTimeout(r, Math.max(0, 250 - (Date.now() - tick))));
    }
  })();

  try {
    receiver.accepting = false;
    const outageStarted = Date.now();
    const messages = backlog / 2;
    for (let offset = 0; offset < messages; offset += BATCH) await send(outaged, Math.min(BATCH, messages - offset), offset, 'Backlog');
    let pending = 0;
    while ((pending = await waiting()) < backlog) {
      if (Date.now() - outageStarted > 15 * 60_000) throw new Error(`only ${pending} of ${backlog} deliveries pending after 15 minutes`);
      await new Promise((r) => setTimeout(r, 1000));
    }
    const outageSeconds = (Date.now() - outageStarted) / 1000;
    const outage = { pending, seconds: Number(outageSeconds.toFixed(1)), refusedRequests: receiver.refused };
    console.log(`-- outage: ${pending} deliveries pending after ${outage.seconds} s, ${outage.refusedRequests} requests refused; the endpoint comes back`);

    const cpu = PROCESSES.map((p) => cpuSecondsOf(p.commandLine));
    phase = 'drain';
    const back = Date.now();
    receiver.accepting = true;
    const deadline = back + 15 * 60_000;
    const distinct = () => new Set(outagedCallbacks.map((c) => `${c.ref}:${c.state}`)).size;
    while (outagedCallbacks.length < backlog || distinct() < backlog) {
      if (Date.now() > deadline) throw new Error(`${backlog - distinct()} deliveries still missing 15 minutes after the endpoint came back`);
      await new Promise((r) => setTimeout(r, 100));
    }
    if ((pending = await waiting()) > 0) throw new Error(`every webhook arrived, yet ${pending} deliveries are still pending`);
    const cpuSeconds = Object.fromEntries(PROCESSES.map((p, i) => [p.name, Number((cpuSecondsOf(p.commandLine) - (cpu[i] ?? 0)).toFixed(1))]));
    streaming = false;
    await stream;

    // Order and completeness, from what the endpoint accepted.
    const seen = new Map<string, Set<string>>();
    let duplicates = 0;
    let outOfOrder = 0;
    for (const c of outagedCallbacks) {
      const states = seen.get(c.ref) ?? new Set<string>();
      if (states.has(c.state)) duplicates++;
      if (c.state === 'delivered' && !states.has('sent')) outOfOrder++;
      states.add(c.state);
      seen.set(c.ref, states);
    }
    const complete = [...seen.values()].filter((s) => s.has('sent') && s.has('delivered')).length;
    const first = Math.min(...outagedCallbacks.map((c) => c.at));
    const last = Math.max(...outagedCallbacks.map((c) => c.at));
    const dead = await json<{ deadLetters: unknown[] }>(`${adminUrl}/admin/v1/accounts/${outaged.accountId}/webhooks/dead-letters`, { headers: admin });
    // One run, the drain's: its figures, the outage's and the other account's latencies as metrics.
    bench.run(
      runOf(
        {
          outage,
          deliveries: outagedCallbacks.length,
          messagesComplete: complete,
          secondsFromRecoveryToFirst: Number(((first - back) / 1000).toFixed(1)),
          secondsFirstToLast: Number(((last - first) / 1000).toFixed(1)),
          deliveriesPerSecond: Math.round(outagedCallbacks.length / ((last - first) / 1000)),
          deliveriesPerSecondFromRecovery: Math.round(outagedCallbacks.length / ((last - back) / 1000)),
          duplicates,
          outOfOrder,
          deadLetters: dead.deadLetters.length,
          otherMessagesSent: otherSent,
          otherDuringOutageMs: latencies(otherCallbacks.filter((o) => o.phase === 'outage').map((o) => o.callback)),
          otherDuringDrainMs: latencies(otherCallbacks.filter((o) => o.phase === 'drain').map((o) => o.callback)),
        },
        { label: 'drain', cpuSeconds },
      ),
    );
    bench.finish();
  } finally {
    streaming = false;
    receiver.accepting = true;
    await stream;
    await pool.end();
    await receiver.close();
    await healthy.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
