import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { CommandMessage, CommandReply } from '@seed/contracts';
import { EventStore, EventSubscription } from '@seed/platform-event-store';
import type { CommandContext } from '@seed/platform-kafka';
import { ServiceSchema } from '@seed/platform-nest';
import { dropSchema, eventually, openTestDataSource, testLogger, uniqueName } from '@seed/platform-testing';
import type { OptOutSource } from '@seed/sms-batch-contracts';
import { migrateSmsBatchSchema, pipelineOf } from '../sms-batch.test-helpers';
import { OptedOutRecipients } from './opted-out-recipients';
import { OptOutsHandler } from './opt-outs.handler';
import { OptOutsProjection } from './opt-outs.projection';

const schema = uniqueName('it_opt_outs');
const store = new EventStore(schema);
const context: CommandContext = { correlationId: 'corr-opt-out', causationId: 'cause', traceparent: null };
let ds: DataSource;
let handler: OptOutsHandler;
let follower: EventSubscription;
const projection = new OptOutsProjection(schema);

const target = (msisdn: string, subAccountId = 'acme_hq') => ({ accountId: 'acme', subAccountId, msisdn });
const commandOf = <T, K extends string>(type: K, data: T, commandId: string = randomUUID()): CommandMessage<T, K> => ({ commandId, type, issuedAt: new Date().toISOString(), data });
const change = (source: OptOutSource, keyword: string | null) => ({ source, keyword });
const optOut = (msisdn: string, commandId?: string, subAccountId?: string) => handler.optOut(commandOf('OptOut', { ...target(msisdn, subAccountId), ...change('keyword', 'STOP') }, commandId), context);
const optIn = (msisdn: string) => handler.optIn(commandOf('OptIn', { ...target(msisdn), ...change('admin', null) }), context);
const get = (msisdn: string) => handler.getOptOut(commandOf('GetOptOut', target(msisdn)));
const list = (after: string | null = null, limit = 100) => handler.listOptOuts(commandOf('ListOptOuts', { accountId: 'acme', subAccountId: 'acme_hq', after, limit }));
/**
 * The read model catches up with the whole log, as the service's follower does. One pass is not
 * enough: the follower reads only transactions older than every one still open in the cluster, so
 * another session's open transaction holds the tail back until it ends.
 */
const followed = () =>
  eventually(async () => {
    await follower.catchUp();
    const [state] = await ds.query(
      `SELECT (SELECT max(transaction_id) FROM ${schema}.events) <= (SELECT transaction_id FROM ${schema}.subscription_checkpoints WHERE subscription = $1) AS done`,
      [projection.name],
    );
    return state.done ? true : undefined;
  });

function ok<T>(reply: CommandReply<T>): T {
  if (!reply.ok) throw new Error(`refused: ${JSON.stringify(reply.failure)}`);
  return reply.result;
}

beforeAll(async () => {
  ds = await openTestDataSource(4);
  await migrateSmsBatchSchema(ds, schema);
  const logger = testLogger();
  handler = new OptOutsHandler(ds, store, pipelineOf(ds, store, schema, logger), new ServiceSchema(schema), logger);
  follower = new EventSubscription(ds, store, projection, logger, { batchSize: 100 });
});

afterAll(async () => {
  await dropSchema(ds, schema);
  await ds.destroy();
});

describe('opt-outs', () => {
  it('opts a recipient out once: a second STOP and a redelivered command append nothing', async () => {
    const commandId = randomUUID();
    const view = ok(await optOut('447700900001', commandId));
    expect(view).toEqual({ subAccountId: 'acme_hq', msisdn: '447700900001', source: 'keyword', keyword: 'STOP', optedOutAt: expect.stringMatching(/Z$/) });
    expect(ok(await optOut('447700900001', commandId))).toEqual(view);
    expect(ok(await optOut('447700900001'))).toEqual(view);
    expect(await store.readStream(ds.manager, 'opt-out-acme_hq-447700900001')).toHaveLength(1);
    expect(ok(await get('447700900001'))).toEqual(view);
  });

  it('lists a sub-account’s opted-out recipients by MSISDN, page by page, from the read model', async () => {
    await optOut('447700900003');
    await optOut('447700900002');
    await optOut('447700900009', undefined, 'other_sub');
    await followed();
    const first = ok(await list(null, 2));
    expect(first.optOuts.map((o) => o.msisdn)).toEqual(['447700900001', '447700900002']);
    expect(first.next).toBe('447700900002');
    const second = ok(await list(first.next, 2));
    expect(second).toEqual({ optOuts: [expect.objectContaining({ msisdn: '447700900003' })], next: null });
  });

  it('opts back in: no longer found or listed; opting in someone who never opted out changes nothing', async () => {
    expect(ok(await optIn('447700900002'))).toEqual({ subAccountId: 'acme_hq', msisdn: '447700900002', optedOut: false });
    expect(await get('447700900002')).toMatchObject({ ok: false, failure: { status: 404 } });
    ok(await optIn('447700900123'));
    expect(await store.readStream(ds.manager, 'opt-out-acme_hq-447700900123')).toHaveLength(0);
    await followed();
    expect(ok(await list()).optOuts.map((o) => o.msisdn)).toEqual(['447700900001', '447700900003']);
  });

  it('keeps the senders’ in-memory set in step: loaded whole, then only the changes', async () => {
    const recipients = new OptedOutRecipients(ds.manager, schema, testLogger());
    await recipients.refresh();
    expect(recipients.has('acme_hq', '447700900001')).toBe(true);
    expect(recipients.has('acme_hq', '447700900002')).toBe(false);
    expect(recipients.has('other_sub', '447700900001')).toBe(false);
    expect(recipients.has('other_sub', '447700900009')).toBe(true);
    await optIn('447700900001');
    await optOut('447700900002');
    await followed();
    await recipients.refresh();
    expect(recipients.has('acme_hq', '447700900001')).toBe(false);
    expect(recipients.has('acme_hq', '447700900002')).toBe(true);
  });
});
