import { eventually, privateKafka, privatePostgres, startStack, type PrivateInfra, type RunningStack } from '@seed/platform-testing';
import type { Account } from './support/http';
import { latencies, OutageLoad, type Outcome } from './support/outage-load';
import { smsc } from './support/smsc';
import { errorLines } from './support/stack-logs';
import { useStarted } from './support/stack';
import { setDefaultUrl } from './support/webhook-admin';
import { bodyOf, WebhookReceiver } from './support/webhook-receiver';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long the dependency stays down. */
const OUTAGE_MS = 10_000;
/** After this long the outage is known (a failed send, a probe): every request gets its 503 at once. */
const DETECTION_MS = 2000;
/** "At once": what a request made during a known outage may wait for its 503. */
const PROMPT_MS = 1000;
/**
 * The gateway's wait by default (COMMAND_TIMEOUT_MS), and the services' deadline with it: a request
 * caught in flight by the outage gets its answer (its result, or a 503 meaning "not done") by then.
 */
const DEADLINE_MS = 5000;
/** The 503's way out of the gateway and the client's clock, on two busy cores. */
const ANSWER_SLACK_MS = 1000;
/** How soon after the dependency is back requests of each kind are accepted again. */
const RECOVERY_MS = 10_000;

/**
 * PostgreSQL or Kafka stops cleanly (as on a node drain or an upgrade) while batches, Verify
 * generations and webhooks are in flight, and comes back ten seconds later. Each runs on a
 * PostgreSQL or broker of its own, so that other test files do not notice.
 */
describe.each([
  { dependency: 'Kafka', variable: 'KAFKA_BROKERS', start: privateKafka, firstNumber: 70_000 },
  { dependency: 'PostgreSQL', variable: 'DATABASE_URL', start: privatePostgres, firstNumber: 80_000 },
])('a $dependency restart under load', ({ dependency, variable, start, firstNumber }) => {
  let infra: PrivateInfra | undefined;
  let receiver: WebhookReceiver | undefined;
  const ctx = useStarted(async () => {
    infra = await start();
    await infra.up();
    receiver = await WebhookReceiver.start();
    return startStack({ [variable]: infra.address, WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}`, SMSC_RECEIPT_DELAY_MS: '50' });
  });
  let stack: RunningStack;
  let account: Account;
  let outcomes: Outcome[];
  let load: OutageLoad;
  let stoppedAt: number;
  /** When its start began (it may answer before `up` returns) and when `up` returned. */
  let restartAt: number;
  let upAt: number;
  let gatewayReadyWhileDown: number;

  beforeAll(async () => {
    stack = ctx.stack;
    account = await stack.createAccount();
    await setDefaultUrl(stack, account.accountId, (receiver as WebhookReceiver).url('/dlr'));
    load = new OutageLoad(stack, account, firstNumber);
    load.start();
    await sleep(3000);
    await (infra as PrivateInfra).down();
    stoppedAt = Date.now();
    await sleep(OUTAGE_MS);
    gatewayReadyWhileDown = (await fetch(`${stack.adminUrl}/health/ready`)).status;
    restartAt = Date.now();
    await (infra as PrivateInfra).up();
    upAt = Date.now();
    await load.acceptedSince(upAt, 3);
    outcomes = await load.stop();
    const during = outcomes.filter((o) => o.startedAt >= stoppedAt + DETECTION_MS && o.endedAt <= restartAt);
    const firstAfter = (['batch', 'verify'] as const).map((kind) => outcomes.find((o) => o.kind === kind && o.startedAt >= upAt));
    const firstAccepted = (['batch', 'verify'] as const).map((kind) => outcomes.find((o) => o.kind === kind && o.startedAt >= upAt && o.status === 200));
    console.log(
      `${dependency} restart: ${outcomes.length} requests, ${outcomes.filter((o) => o.status === 200).length} accepted;` +
        ` 503 while down (known): ${JSON.stringify(latencies(during))};` +
        ` all 503s: ${JSON.stringify(latencies(outcomes.filter((o) => o.status === 503)))};` +
        ` first batch / verify after recovery: ${firstAfter.map((o) => (o ? `${o.status} in ${o.endedAt - o.startedAt} ms` : 'none')).join(' / ')};` +
        ` first accepted: ${firstAccepted.map((o) => (o ? `${o.startedAt - upAt} ms after the return` : 'none')).join(' / ')}`,
    );
  }, 180_000);

  afterAll(async () => {
    await receiver?.close();
    await infra?.remove();
  });

  it('answers every request 200 or 503 with Retry-After, never a timeout or a 500', () => {
    for (const outcome of outcomes) {
      expect([200, 503]).toContain(outcome.status);
      if (outcome.status === 503) expect(outcome).toMatchObject({ retryAfter: expect.stringMatching(/^\d+$/), code: 2000 });
    }
    expect(outcomes.filter((o) => o.status === 503).length).toBeGreaterThan(0);
  });

  it(`answers every request within the ${DEADLINE_MS} ms deadline, the ones in flight when it stopped too`, () => {
    const slow = outcomes.filter((o) => o.endedAt - o.startedAt > DEADLINE_MS + ANSWER_SLACK_MS);
    expect(slow.map((o) => `${o.kind} ${o.status} after ${o.endedAt - o.startedAt} ms`)).toEqual([]);
  });

  it(`answers 503 within ${PROMPT_MS} ms once the outage is known`, () => {
    const during = outcomes.filter((o) => o.startedAt >= stoppedAt + DETECTION_MS && o.endedAt <= restartAt);
    expect(during.length).toBeGreaterThan(5);
    for (const outcome of during) {
      expect(outcome.status).toBe(503);
      expect(outcome.endedAt - outcome.startedAt).toBeLessThan(PROMPT_MS);
    }
  });

  it('logs no error-level line from its start through the restart: a restart is not an operator\'s to act on', () => {
    // Warnings say what happened (the outage found and over, consumers restarted, 503s answered);
    // errors are kept for what lasts (a minute of failing) or is a fault.
    const errors = errorLines(stack);
    expect([...new Set(errors)].map((line) => `${errors.filter((e) => e === line).length} x ${line}`)).toEqual([]);
  });

  it('keeps the gateway ready, so that a load balancer still sends clients to it for their 503', () => {
    expect(gatewayReadyWhileDown).toBe(200);
  });

  it(`accepts batches and Verify generations again within ${RECOVERY_MS} ms of its return`, () => {
    // The consumers rejoin their groups first (a new broker loads its group coordinator): a request
    // in those seconds may have its 503 at the deadline, "not done", and its retry is served.
    for (const kind of ['batch', 'verify'] as const) {
      const first = outcomes.find((o) => o.kind === kind && o.startedAt >= upAt && o.status === 200);
      expect(first).toBeDefined();
      expect((first as Outcome).startedAt - upAt).toBeLessThan(RECOVERY_MS);
    }
  });

  it('sends every accepted message once, and nothing of a request not answered 200; a retry of a 503 with its key sends nothing twice', async () => {
    const accepted = outcomes.filter((o) => o.status === 200).flatMap((o) => o.destinations);
    const perDestination = async () => {
      const counts = new Map<string, number>();
      for (const m of await smsc(stack.smscUrl).all()) counts.set(m.destination, (counts.get(m.destination) ?? 0) + 1);
      return counts;
    };
    const received = await eventually(async () => {
      const counts = await perDestination();
      return accepted.every((d) => counts.has(d)) ? counts : undefined;
    }, 60_000);
    for (const destination of accepted) expect(received.get(destination)).toBe(1);
    // What a refused request left in flight would reach the carrier after the accepted ones.
    await sleep(3000);
    const beforeRetries = await perDestination();
    // Each refused batch sent again with its Idempotency-Key, as Retry-After invites. A replayed
    // answer means its first request was decided after all: before its deadline, with the answer
    // lost to the outage on its way back (what no deadline can prevent: the key is for that).
    const retries = await load.retryRefusedBatches();
    const refusedBatches = outcomes.filter((o) => o.kind === 'batch' && o.status !== 200);
    const answeredLate = new Set(refusedBatches.filter((_, i) => retries[i]?.replayed).flatMap((o) => o.destinations));
    // A Verify generation has no key to show it; one that waited its whole deadline was in flight
    // when the broker stopped, and may have been decided with its answer lost the same way.
    const verifyInFlight = new Set(outcomes.filter((o) => o.kind === 'verify' && o.status === 503 && o.endedAt - o.startedAt >= DEADLINE_MS).flatMap((o) => o.destinations));
    const verifyLate = [...beforeRetries.keys()].filter((d) => verifyInFlight.has(d));
    const acceptedSet = new Set([...accepted, ...verifyLate]);
    const answers = new Map(outcomes.flatMap((o) => o.destinations.map((d) => [d, `${o.kind} ${o.status} after ${o.endedAt - o.startedAt} ms`] as const)));
    const notAccepted = [...beforeRetries.keys()].filter((d) => !acceptedSet.has(d) && !answeredLate.has(d));
    console.log(
      `${dependency} restart: ${refusedBatches.length} batches refused, ${retries.filter((r) => r.status === 200).length} accepted at their retry, ` +
        `${answeredLate.size / 5} of them replayed (decided in time, the answer lost to the outage); ` +
        `${verifyLate.length} SMS of Verify generations answered 503 at the deadline`,
    );
    expect(notAccepted.map((d) => `${d}: ${answers.get(d) ?? 'not of the load'}`)).toEqual([]);
    expect(retries.map((r) => r.status)).toEqual(refusedBatches.map(() => 200));
    const after = await eventually(async () => {
      const counts = await perDestination();
      return refusedBatches.every((o) => o.destinations.every((d) => counts.has(d))) ? counts : undefined;
    }, 60_000);
    await sleep(2000);
    const settled = await perDestination();
    for (const destination of [...accepted, ...refusedBatches.flatMap((o) => o.destinations)]) expect(settled.get(destination) ?? after.get(destination)).toBe(1);
  });

  it('delivers the delivered webhook of every accepted batch message, each status once', async () => {
    const umids = outcomes.filter((o) => o.kind === 'batch' && o.status === 200).flatMap((o) => o.umids);
    const statesOf = () => {
      const states = new Map<string, string[]>();
      for (const r of (receiver as WebhookReceiver).accepted('/dlr')) {
        const { umid, status } = bodyOf(r).payload;
        states.set(umid, [...(states.get(umid) ?? []), status.state]);
      }
      return states;
    };
    const states = await eventually(async () => {
      const now = statesOf();
      return umids.every((umid) => now.get(umid)?.includes('delivered')) ? now : undefined;
    }, 60_000).catch(() => statesOf());
    // Named per message, so that a miss says which status of which message never came.
    const unexpected = umids.filter((umid) => states.get(umid)?.join() !== 'sent,delivered').map((umid) => `${umid}: ${states.get(umid)?.join() ?? 'none'}`);
    expect(unexpected).toEqual([]);
  });
});
