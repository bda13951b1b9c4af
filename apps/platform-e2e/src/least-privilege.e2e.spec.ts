import { execFile, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Kafka, logLevel, type SASLOptions } from 'kafkajs';
import { Client } from 'pg';
import { eventually, privateKafka, requireEnv, stackProcess, startStack, type PrivateInfra } from '@seed/platform-testing';
import { createToken, logIn } from './support/agent';
import { request, sendBatch, ukMobile, type Account } from './support/http';
import { smsc } from './support/smsc';
import { useStarted } from './support/stack';
import { generate, receivedCodes } from './support/verify';
import { setDefaultUrl } from './support/webhook-admin';
import { bodyOf, WebhookReceiver } from './support/webhook-receiver';

const run = promisify(execFile);
const ROOT = join(__dirname, '../../..');

/**
 * The platform with least privilege, as docs/security.md sets it up: a broker that serves TLS only,
 * authenticates with SASL/SCRAM-SHA-512 and enforces ACLs (tools/infra/kafka/secure.sh), each
 * service as its own Kafka user with exactly the rights of tools/deploy/kafka-access/
 * service-principals.ts (applied by `npm run kafka:access`), and as its own PostgreSQL role owning
 * only its schema (made by `npm run db:roles`).
 */
describe('the stack with one Kafka user and one PostgreSQL role per service', () => {
  let kafka: PrivateInfra | undefined;
  let broker: Record<string, string>;
  let receiver: WebhookReceiver;
  const schemaPrefix = `lp${randomBytes(3).toString('hex')}_`;
  let roleUrls: Record<string, string> = {};
  const password = (user: string) => readFileSync(join(broker['KAFKA_CREDENTIALS_DIR']!, `${user}.password`), 'utf8').trim();
  const ctx = useStarted(async () => {
    kafka = await privateKafka({ KAFKA_SECURITY: 'scram-tls' });
    await kafka.up();
    broker = kafka.settings();
    // The ACLs, set by the operator's command as the broker's admin; no topic prefix (the broker is this file's own).
    await run(process.execPath, [join(ROOT, 'dist/tools/deploy/kafka-access/kafka-access.js'), 'apply', '--create-topics'], {
      env: { PATH: process.env['PATH'] ?? '', ...broker, KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'admin', KAFKA_SASL_PASSWORD: password('admin') },
    });
    // The roles, made by the operator's command as the database's superuser, written as k8s/ takes them.
    const rolesFile = join(mkdtempSync(join(tmpdir(), 'seed-roles-')), 'roles.env');
    await run(process.execPath, [join(ROOT, 'dist/tools/deploy/database-roles-cli.js'), '--out', rolesFile, '--schema-prefix', schemaPrefix], {
      env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: requireEnv('DATABASE_URL') },
    });
    roleUrls = Object.fromEntries(readFileSync(rolesFile, 'utf8').trim().split('\n').map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
    receiver = await WebhookReceiver.start();
    const stack = await startStack({
      ...roleUrls,
      DATABASE_SCHEMA_PREFIX: schemaPrefix,
      KAFKA_BROKERS: broker['KAFKA_BROKERS']!,
      KAFKA_SSL_CA: broker['KAFKA_SSL_CA']!,
      KAFKA_CREDENTIALS_DIR: broker['KAFKA_CREDENTIALS_DIR']!,
      KAFKA_TOPIC_PREFIX: '',
      WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}`,
      SMSC_RECEIPT_DELAY_MS: '50',
    });
    return { ...stack, schemaPrefix, stop: () => stack.stop().then(dropRoles) };
  });
  const superuser = async <T>(work: (client: Client) => Promise<T>, url = requireEnv('DATABASE_URL')): Promise<T> => {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  const dropRoles = () =>
    superuser(async (client) => {
      for (const url of Object.values(roleUrls)) {
        const role = decodeURIComponent(new URL(url).username);
        await client.query(`DROP OWNED BY "${role}" CASCADE`);
        await client.query(`DROP ROLE "${role}"`);
      }
    });
  let account: Account;

  beforeAll(async () => {
    account = await ctx.stack.createAccount();
  });
  afterAll(async () => {
    await receiver?.close();
    await kafka?.remove();
  });

  const client = (sasl: SASLOptions | undefined, ssl: boolean | { ca: string[] } = { ca: [readFileSync(broker['KAFKA_SSL_CA']!, 'utf8')] }) =>
    new Kafka({ clientId: 'e2e-acl', brokers: [broker['KAFKA_BROKERS']!], ssl, ...(sasl ? { sasl } : {}), logLevel: logLevel.NOTHING, retry: { retries: 0 }, connectionTimeout: 3000 });
  const as = (user: string): SASLOptions => ({ mechanism: 'scram-sha-512', username: user, password: password(user) });

  it('carries a batch from the API to the carrier and its delivered webhook to the customer', async () => {
    await setDefaultUrl(ctx.stack, account.accountId, receiver.url('/acl'));
    const destination = ukMobile(62_001);
    const batch = await sendBatch(ctx.stack, account, { template: { text: 'Over TLS' }, messages: [{ destination }], includeMessagesInResponse: true });
    const umid = batch.messages?.[0]?.umid as string;
    expect((await smsc(ctx.stack.smscUrl).only(destination)).text).toBe('Over TLS');
    await eventually(async () => (receiver.accepted().some((r) => r.body.includes(umid) && bodyOf(r).payload.status.state === 'delivered') ? true : undefined), 30_000);
  });

  it('sends a Verify code and lets verification ask sms-batch for it under its own user', async () => {
    const msisdn = ukMobile(62_002);
    expect((await generate(ctx.stack, account, { destination: msisdn })).status).toBe('WAITING');
    expect(await receivedCodes(ctx.stack, msisdn, 1)).toHaveLength(1);
  });

  it('texts a guest link when an agent logs in, agent-token asking sms-batch under its own user', async () => {
    const phone = ukMobile(62_003);
    const token = await createToken(ctx.stack, account.apiKey, { create_room: true, phone_number: `+${phone}` });
    await logIn(ctx.stack, token.auth_token);
    expect((await smsc(ctx.stack.smscUrl).only(phone)).text).toBe(`Join your video call: ${token.guest_link}`);
  });

  it('runs each service as its own PostgreSQL role: its migrations made its tables, owned by it', async () => {
    const owners = await superuser(async (client) =>
      (await client.query<{ schemaname: string; owners: string[] }>(`SELECT schemaname, array_agg(DISTINCT tableowner::text) AS owners FROM pg_tables WHERE schemaname LIKE $1 GROUP BY schemaname`, [`${schemaPrefix}%`])).rows,
    );
    expect(Object.fromEntries(owners.map((row) => [row.schemaname.slice(schemaPrefix.length), row.owners]))).toEqual({
      api_gateway: [`seed_${schemaPrefix}api_gateway`],
      sms_batch: [`seed_${schemaPrefix}sms_batch`],
      verification: [`seed_${schemaPrefix}verification`],
      agent_token: [`seed_${schemaPrefix}agent_token`],
      webhook_dispatcher: [`seed_${schemaPrefix}webhook_dispatcher`],
    });
  });

  it("refuses the dispatcher's role the gateway's API keys", async () => {
    await superuser(async (client) => {
      await expect(client.query(`SELECT count(*) FROM "${schemaPrefix}api_gateway".api_keys`)).rejects.toThrow(/permission denied/);
    }, roleUrls['DATABASE_URL_WEBHOOK_DISPATCHER']);
  });

  it("refuses the dispatcher's user a command to sms-batch and a seat in sms-batch's group", async () => {
    const producer = client(as('seed-webhook-dispatcher')).producer();
    await producer.connect();
    try {
      await expect(producer.send({ topic: 'sms-batch.commands.v1', messages: [{ value: '{}' }] })).rejects.toThrow(/not authorized/i);
    } finally {
      await producer.disconnect();
    }
    const consumer = client(as('seed-webhook-dispatcher')).consumer({ groupId: 'sms-batch' });
    await consumer.connect();
    try {
      await expect(consumer.subscribe({ topics: ['sms-batch.commands.v1'] }).then(() => consumer.run({ eachMessage: async () => undefined }))).rejects.toThrow(/not authorized/i);
    } finally {
      await consumer.disconnect();
    }
  });

  it("refuses an operator command forged with verification's user: no write to sms-batch's own topic, and dead-lettered unrun from its sends topic", async () => {
    const forged = { commandId: randomUUID(), type: 'PutCarrier', issuedAt: new Date().toISOString(), data: { carrierId: 'forged', carrier: { url: 'smpp://attacker:secret@127.0.0.1:2775' } } };
    const record = { key: account.subAccountId, value: JSON.stringify(forged), headers: { 'message-id': forged.commandId } };
    const producer = client(as('seed-verification')).producer();
    await producer.connect();
    try {
      await expect(producer.send({ topic: 'sms-batch.commands.v1', messages: [record] })).rejects.toThrow(/not authorized/i);
      // Its own sends topic takes the record (its ACL allows it); sms-batch refuses what it asks.
      await producer.send({ topic: 'sms-batch.service-commands.v1', messages: [record] });
    } finally {
      await producer.disconnect();
    }
    const reason = await deadLetterReason(forged.commandId);
    expect(reason).toMatch(/command type PutCarrier is not taken from sms-batch\.service-commands\.v1: its writers may send only SubmitBatch, SubmitBatches/);
    expect((await request(`${ctx.stack.adminUrl}/admin/v1/carriers/forged`, { token: ctx.stack.adminToken, method: 'GET' })).status).toBe(404);
  });

  /** The dead-letter reason of a command in sms-batch's dead letters, read as the broker's admin. */
  const deadLetterReason = async (commandId: string): Promise<string> => {
    const consumer = client(as('admin')).consumer({ groupId: `e2e-dlq-${randomUUID()}` });
    await consumer.connect();
    try {
      await consumer.subscribe({ topic: 'sms-batch.commands.v1.dlq', fromBeginning: true });
      return await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no dead letter of ${commandId} within 30 s`)), 30_000);
        consumer
          .run({
            eachMessage: async ({ message }) => {
              if (message.headers?.['message-id']?.toString() !== commandId) return;
              clearTimeout(timer);
              resolve(message.headers['dead-letter-reason']?.toString() ?? '');
            },
          })
          .catch(reject);
      });
    } finally {
      await consumer.disconnect();
    }
  };

  it('refuses a wrong password, a client without one, and a connection without TLS', async () => {
    const admin = (sasl: SASLOptions | undefined, ssl?: false) => client(sasl, ssl).admin();
    await expect(admin({ mechanism: 'scram-sha-512', username: 'seed-sms-batch', password: 'not-its-password' }).connect()).rejects.toThrow(/authentication failed/i);
    const anonymous = admin(undefined);
    await anonymous.connect().catch(() => undefined);
    await expect(anonymous.listTopics()).rejects.toThrow();
    await anonymous.disconnect();
    await expect(admin(as('seed-sms-batch'), false).connect()).rejects.toThrow();
  });

  it('stops a service started with another service’s user: sms-batch cannot run as the dispatcher', async () => {
    const exit = await runToExit('sms-batch', {
      ...ctx.stack.env,
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: 'seed-webhook-dispatcher',
      KAFKA_SASL_PASSWORD: password('seed-webhook-dispatcher'),
      HEALTH_PORT: '0',
      START_TIMEOUT_MS: '5000',
    });
    expect(exit.code).not.toBe(0);
    expect(exit.output).toMatch(/topics not created \(sms-batch.commands.v1: TOPIC_AUTHORIZATION_FAILED/);
  });
});

/** Runs one service from dist/ until it exits (or a minute passes); its exit code and output. */
async function runToExit(app: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [join(ROOT, stackProcess(app).main)], { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  return { code, output };
}
