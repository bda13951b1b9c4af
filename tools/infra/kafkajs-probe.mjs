#!/usr/bin/env node
// Probe that the local Kafka broker works with kafkajs (the client our services use).
//
//   node tools/infra/kafkajs-probe.mjs            full probe (see steps below), exit 0 on success
//   node tools/infra/kafkajs-probe.mjs --ready    only: admin connects and lists topics
//                                                 (used by infra.sh to wait for the broker)
//   node tools/infra/kafkajs-probe.mjs --large    full probe + one 30 MB message round trip
//
// Brokers: $KAFKA_BROKERS, else KAFKA_BROKERS from <repo>/.local/infra.env, else 127.0.0.1:59092.
// kafkajs is loaded from the repository's node_modules (or $KAFKAJS_MODULE, a path to it).
//
// Full probe:
//   1. admin: create a topic with 3 partitions (waitForLeaders)
//   2. plain producer: 100 keyed messages, GZIP
//   3. consumer group (fromBeginning, manual commits): all 100 arrive; committed offsets add up
//   4. idempotent producer (idempotent: true, maxInFlightRequests: 1): 20 messages
//   5. transactional producer: a committed transaction (10 messages + sendOffsets for a group),
//      an aborted one (5 messages), then a committed sentinel
//   6. read_committed consumer group: exactly the 131 committed messages, none aborted;
//      the offsets sent inside the transaction are visible
//   7. (--large) a 30 MB message is produced and consumed back intact
//   8. delete the topic and the groups
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brokers, loadKafkajs, security } from './kafkajs-probe-client.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '..', '..');
const readyOnly = process.argv.includes('--ready');
const large = process.argv.includes('--large');
const TIMEOUT_MS = Number(process.env.PROBE_TIMEOUT_MS || (readyOnly ? 15000 : 90000));

function log(msg) {
  if (!readyOnly || process.env.PROBE_VERBOSE) console.log(`[probe] ${msg}`);
}

function fail(reason, err) {
  console.error(`[probe] FAIL: ${reason}`);
  if (err) console.error(err && err.stack ? err.stack : String(err));
  process.exit(1);
}

const loaded = loadKafkajs(repoRoot);
if (!loaded) fail(`cannot load kafkajs from ${repoRoot}/node_modules (run npm ci, or set KAFKAJS_MODULE)`);
const { mod: kafkajs, from: kafkajsPath, version: kafkajsVersion } = loaded;
const { Kafka, CompressionTypes, logLevel } = kafkajs;
const brokerList = brokers(repoRoot);

const kafka = new Kafka({
  clientId: 'seed-infra-probe',
  brokers: brokerList,
  ...security,
  logLevel: process.env.PROBE_KAFKAJS_DEBUG ? logLevel.DEBUG : logLevel.NOTHING,
  connectionTimeout: 3000,
  requestTimeout: 30000,
  retry: { retries: readyOnly ? 2 : 5, initialRetryTime: 200 },
});

const timer = setTimeout(() => fail(`timed out after ${TIMEOUT_MS} ms`), TIMEOUT_MS);
timer.unref();

const started = Date.now();
const since = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what, cond, ms = 30000) {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

async function ready() {
  const admin = kafka.admin();
  try {
    await admin.connect();
    const topics = await admin.listTopics();
    log(`ready: ${brokerList.join(',')} (${topics.length} topics)`);
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

async function consumeAll({ groupId, topic, expected, readUncommitted = false, manualCommit = false, isDone }) {
  const consumer = kafka.consumer({
    groupId,
    sessionTimeout: 10000,
    heartbeatInterval: 1000,
    maxWaitTimeInMs: 200,
    readUncommitted,
    retry: { retries: 5 },
  });
  const got = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      autoCommit: !manualCommit,
      eachMessage: async ({ topic: t, partition, message }) => {
        got.push({ partition, offset: message.offset, key: message.key?.toString(), value: message.value?.toString() });
        if (manualCommit) {
          await consumer.commitOffsets([{ topic: t, partition, offset: (BigInt(message.offset) + 1n).toString() }]);
        }
      },
    });
    await waitFor(`${expected} messages on ${topic} (group ${groupId}, have ${got.length})`, () =>
      isDone ? isDone(got) : got.length >= expected,
    );
    // Give anything unexpected a moment to show up.
    await sleep(300);
  } finally {
    await consumer.disconnect().catch(() => {});
  }
  return got;
}

async function sumCommitted(admin, groupId, topic) {
  const res = await admin.fetchOffsets({ groupId, topics: [topic] });
  const parts = res.find((r) => r.topic === topic)?.partitions ?? [];
  return parts.reduce((acc, p) => acc + (Number(p.offset) > 0 ? Number(p.offset) : 0), 0);
}

async function fullProbe() {
  const suffix = `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  const topic = `infra-probe-${suffix}`;
  const groupPlain = `infra-probe-plain-${suffix}`;
  const groupTxnOffsets = `infra-probe-txnoffsets-${suffix}`;
  const groupCommitted = `infra-probe-committed-${suffix}`;
  log(`kafkajs ${kafkajsVersion} from ${kafkajsPath}`);
  log(`brokers ${brokerList.join(',')}`);

  const admin = kafka.admin();
  await admin.connect();
  try {
    const cluster = await admin.describeCluster();
    log(`cluster ${cluster.clusterId}, ${cluster.brokers.length} broker(s), controller ${cluster.controller}`);

    // 1. topic
    const created = await admin.createTopics({
      waitForLeaders: true,
      topics: [{ topic, numPartitions: 3, replicationFactor: 1 }],
    });
    if (!created) throw new Error(`createTopics returned false for ${topic}`);
    const meta = await admin.fetchTopicMetadata({ topics: [topic] });
    const nParts = meta.topics[0].partitions.length;
    if (nParts !== 3) throw new Error(`expected 3 partitions, got ${nParts}`);
    log(`1 created ${topic} with 3 partitions (${since()})`);

    // 2. plain producer, GZIP, keyed
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    const plain = Array.from({ length: 100 }, (_, i) => ({ key: `key-${i}`, value: `plain-${i}` }));
    await producer.send({ topic, acks: -1, compression: CompressionTypes.GZIP, messages: plain });
    await producer.disconnect();
    log(`2 produced 100 keyed messages with GZIP (${since()})`);

    // 3. consumer group, manual commits
    const got1 = await consumeAll({ groupId: groupPlain, topic, expected: 100, manualCommit: true });
    const values1 = new Set(got1.map((m) => m.value));
    for (let i = 0; i < 100; i++) {
      if (!values1.has(`plain-${i}`)) throw new Error(`message plain-${i} did not arrive`);
    }
    if (got1.length !== 100) throw new Error(`expected 100 messages, got ${got1.length}`);
    const badKey = got1.find((m) => m.key !== `key-${m.value.slice('plain-'.length)}`);
    if (badKey) throw new Error(`key/value mismatch: ${JSON.stringify(badKey)}`);
    const partitionsUsed = new Set(got1.map((m) => m.partition)).size;
    const committed1 = await sumCommitted(admin, groupPlain, topic);
    if (committed1 !== 100) throw new Error(`committed offsets add up to ${committed1}, expected 100`);
    log(`3 consumed 100/100 over ${partitionsUsed} partitions; committed offsets add up to 100 (${since()})`);

    // 4. idempotent producer
    const idem = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    await idem.connect();
    const idemMsgs = Array.from({ length: 20 }, (_, i) => ({ key: `idem-key-${i}`, value: `idem-${i}` }));
    await idem.send({ topic, acks: -1, compression: CompressionTypes.GZIP, messages: idemMsgs });
    await idem.disconnect();
    log(`4 idempotent producer sent 20 messages (${since()})`);

    // 5. transactional producer
    const txp = kafka.producer({
      transactionalId: `infra-probe-tx-${suffix}`,
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
    });
    await txp.connect();
    const tx1 = await txp.transaction();
    await tx1.send({
      topic,
      compression: CompressionTypes.GZIP,
      messages: Array.from({ length: 10 }, (_, i) => ({ key: `tx-key-${i}`, value: `txcommit-${i}`, partition: 0 })),
    });
    await tx1.sendOffsets({
      consumerGroupId: groupTxnOffsets,
      topics: [{ topic, partitions: [{ partition: 0, offset: '7' }] }],
    });
    await tx1.commit();
    const tx2 = await txp.transaction();
    await tx2.send({
      topic,
      messages: Array.from({ length: 5 }, (_, i) => ({ key: `tx-key-${i}`, value: `txabort-${i}`, partition: 0 })),
    });
    await tx2.abort();
    const tx3 = await txp.transaction();
    await tx3.send({ topic, messages: [{ key: 'sentinel', value: 'sentinel', partition: 0 }] });
    await tx3.commit();
    await txp.disconnect();
    log(`5 transactions: committed 10 (+sendOffsets), aborted 5, committed sentinel (${since()})`);

    // 6. read_committed consumer
    const got2 = await consumeAll({
      groupId: groupCommitted,
      topic,
      expected: 131,
      isDone: (g) => g.length >= 131 && g.some((m) => m.value === 'sentinel'),
    });
    const aborted = got2.filter((m) => m.value.startsWith('txabort-'));
    if (aborted.length) throw new Error(`read_committed consumer saw ${aborted.length} aborted messages`);
    const count = (p) => got2.filter((m) => m.value.startsWith(p)).length;
    const counts = { plain: count('plain-'), idem: count('idem-'), txcommit: count('txcommit-'), sentinel: count('sentinel') };
    if (counts.plain !== 100 || counts.idem !== 20 || counts.txcommit !== 10 || counts.sentinel !== 1) {
      throw new Error(`unexpected message counts ${JSON.stringify(counts)}`);
    }
    const txOffsets = await admin.fetchOffsets({ groupId: groupTxnOffsets, topics: [topic] });
    const p0 = txOffsets[0].partitions.find((p) => p.partition === 0);
    if (!p0 || p0.offset !== '7') throw new Error(`offset sent in transaction not committed: ${JSON.stringify(txOffsets)}`);
    log(`6 read_committed group got ${got2.length} = ${JSON.stringify(counts)}, no aborted; txn offsets committed (${since()})`);

    // 7. large message (commands can be up to ~32 MB)
    if (large) {
      const size = 30 * 1024 * 1024;
      const big = Buffer.alloc(size);
      for (let i = 0; i < size; i += 4) big.writeUInt32LE((i * 2654435761) >>> 0, i);
      const bigProducer = kafka.producer({ allowAutoTopicCreation: false });
      await bigProducer.connect();
      await bigProducer.send({ topic, acks: -1, messages: [{ key: 'big', value: big, partition: 1 }] });
      await bigProducer.disconnect();
      const consumer = kafka.consumer({ groupId: `${groupPlain}-big`, sessionTimeout: 10000, maxWaitTimeInMs: 200 });
      let gotBig = null;
      await consumer.connect();
      try {
        await consumer.subscribe({ topics: [topic], fromBeginning: true });
        await consumer.run({
          eachMessage: async ({ message }) => {
            if (message.key?.toString() === 'big') gotBig = message.value;
          },
        });
        await waitFor('the 30 MB message', () => gotBig !== null, 60000);
      } finally {
        await consumer.disconnect().catch(() => {});
      }
      if (!big.equals(gotBig)) throw new Error(`30 MB message came back different (${gotBig.length} bytes)`);
      await admin.deleteGroups([`${groupPlain}-big`]).catch(() => {});
      log(`7 30 MB message produced and consumed back intact (${since()})`);
    }

    // 8. cleanup
    await admin.deleteGroups([groupPlain, groupCommitted, groupTxnOffsets]).catch((e) => log(`deleteGroups: ${e.message}`));
    await admin.deleteTopics({ topics: [topic], timeout: 10000 });
    log(`8 deleted topic and groups (${since()})`);
  } finally {
    await admin.disconnect().catch(() => {});
  }
  log(`PASS in ${since()}`);
}

(readyOnly ? ready() : fullProbe())
  .then(() => process.exit(0))
  .catch((err) => fail(err.message || String(err), process.env.PROBE_VERBOSE ? err : undefined));
