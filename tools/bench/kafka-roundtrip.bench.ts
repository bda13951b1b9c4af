// `npm run bench:kafka`: what one command request-reply through the broker costs on this machine,
// with nothing else around it: no HTTP, no database, no business logic. A requester sends commands
// at a fixed rate (open loop) to a 12-partition command topic with the platform's MessageProducer;
// a responder reads them (the services' consumer settings) and answers each on a reply topic, which
// the requester reads, as the gateway and a service do. Prints round trips/s, p50/p99 of a round
// trip, and the CPU per round trip of the broker (when it runs on this machine) and of this process
// (requester and responder together). Every gateway call and the verification SMS is such a round
// trip, so this is the floor under each of them.
// Settings: BENCH_RATE (round trips/s, default 800: four per Verify flow at 200 flows/s),
// BENCH_SECONDS (15), BENCH_WARMUP_SECONDS (3), KAFKA_BROKERS (default from .local/infra.env),
// KAFKA_REPLICATION_FACTOR of its two short-lived topics (1; a cluster's min.insync.replicas or more).
// The broker's CPU is read only when it runs on this machine.
import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import pino from 'pino';
import { kafkaClientOptions } from '@seed/platform-config';
import { commandTopic, CONSUMER_SETTINGS, ensureTopics, KafkaConnection, MessageProducer, parseBrokers, replyTopic } from '@seed/platform-kafka';
import { cpuSecondsOf, openLoop, percentile } from './bench-support';
import { runOf, startBenchmark } from './runner';

const env = process.env;
const rate = Number(env['BENCH_RATE'] ?? 800);
const seconds = Number(env['BENCH_SECONDS'] ?? 15);
const warmupSeconds = Number(env['BENCH_WARMUP_SECONDS'] ?? 3);

/** `npm run` starts this through run-dist, which fills KAFKA_BROKERS from .local/infra.env when unset. */
function brokers(): string[] {
  const list = env['KAFKA_BROKERS'];
  if (!list) throw new Error('no broker: set KAFKA_BROKERS or start the local one (npm run infra:up)');
  return parseBrokers(list);
}

async function main(): Promise<void> {
  const bench = startBenchmark('kafka', 'npm run bench:kafka', { rate, seconds, warmupSeconds });
  const prefix = `bench-kafka-${Date.now().toString(36)}.`;
  const replicationFactor = Number(env['KAFKA_REPLICATION_FACTOR'] ?? 1);
  const { security } = kafkaClientOptions({ ...env, KAFKA_BROKERS: brokers().join(',') });
  const connection = new KafkaConnection({ brokers: brokers(), clientId: 'bench-kafka', prefix, replicationFactor, security }, pino({ level: 'fatal' }));
  const commands = { ...commandTopic('commands'), partitions: 12 };
  const replies = replyTopic('replies');
  await ensureTopics(connection, [commands, replies]);
  const requesterProducer = new MessageProducer(connection);
  const responderProducer = new MessageProducer(connection);
  const responder = connection.kafka.consumer({ groupId: connection.group('responder'), ...CONSUMER_SETTINGS });
  const requester = connection.kafka.consumer({ groupId: connection.group('requester'), ...CONSUMER_SETTINGS });
  const waiting = new Map<string, (ms: number) => void>();

  try {
    await Promise.all([requesterProducer.connect(), responderProducer.connect(), responder.connect(), requester.connect()]);
    await responder.subscribe({ topic: connection.topic(commands.name), fromBeginning: true });
    await requester.subscribe({ topic: connection.topic(replies.name), fromBeginning: true });
    await responder.run({
      autoCommit: false,
      partitionsConsumedConcurrently: 3,
      eachMessage: async ({ message }) => {
        const { id } = JSON.parse(message.value?.toString() ?? '{}') as { id: string };
        await responderProducer.send(replies.name, [{ key: id, value: { id, ok: true }, headers: {} }]);
      },
    });
    await requester.run({
      autoCommit: false,
      partitionsConsumedConcurrently: 3,
      eachMessage: async ({ message }) => {
        const { id } = JSON.parse(message.value?.toString() ?? '{}') as { id?: string };
        if (id) waiting.get(id)?.(performance.now());
      },
    });

    const roundTrip = async (latencies: number[] | null): Promise<void> => {
      const id = randomUUID();
      const sentAt = performance.now();
      const answered = new Promise<number>((resolve) => waiting.set(id, resolve));
      await requesterProducer.send(commands.name, [{ key: id, value: { id }, headers: {} }]);
      const at = await Promise.race([answered, new Promise<number>((_, reject) => setTimeout(() => reject(new Error('no reply in 30 s')), 30_000))]);
      waiting.delete(id);
      latencies?.push(at - sentAt);
    };

    console.log(`warm-up: ${warmupSeconds} s at ${rate} round trips/s`);
    await openLoop(rate, warmupSeconds, 0, () => roundTrip(null));
    const latencies: number[] = [];
    const failures = new Map<string, number>();
    const broker0 = cpuSecondsOf('kafka\\.Kafka');
    const self0 = process.cpuUsage();
    console.log(`measuring: ${seconds} s at ${rate} round trips/s`);
    const elapsed = await openLoop(rate, seconds, 0, () => roundTrip(latencies), failures);
    const self = process.cpuUsage(self0);
    const broker = cpuSecondsOf('kafka\\.Kafka') - broker0;
    const perRoundTripMs = (cpuSeconds: number) => Number(((cpuSeconds * 1000) / latencies.length).toFixed(3));
    bench.run(
      runOf(
        {
          roundTrips: latencies.length,
          roundTripsPerSecond: Number((latencies.length / elapsed).toFixed(1)),
          p50Ms: percentile(latencies, 50),
          p99Ms: percentile(latencies, 99),
          failures: Object.fromEntries(failures),
          // The broker's figures only when it runs on this machine.
          ...(broker > 0 ? { 'cpuMsPerRoundTrip.broker': perRoundTripMs(broker) } : { broker: 'not on this machine' }),
          'cpuMsPerRoundTrip.requesterAndResponder': perRoundTripMs((self.user + self.system) / 1e6),
          ...(broker > 0 ? { cpuShareOfMachine: Number(((broker + (self.user + self.system) / 1e6) / elapsed / availableParallelism()).toFixed(2)) } : {}),
        },
        { label: `${seconds} s at ${rate} round trips/s` },
      ),
    );
    bench.finish();
  } finally {
    await Promise.allSettled([responder.disconnect(), requester.disconnect(), requesterProducer.disconnect(), responderProducer.disconnect()]);
    const admin = connection.kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [connection.topic(commands.name), connection.topic(replies.name)] }).catch(() => undefined);
    await admin.disconnect();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
