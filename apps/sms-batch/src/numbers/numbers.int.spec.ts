import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { CommandMessage, CommandReply } from '@seed/contracts';
import { EventStore } from '@seed/platform-event-store';
import type { CommandContext } from '@seed/platform-kafka';
import { dropSchema, openTestDataSource, testLogger, uniqueName } from '@seed/platform-testing';
import { NUMBERS_STREAM, type NumberInput } from '@seed/sms-batch-contracts';
import { migrateSmsBatchSchema, pipelineOf } from '../sms-batch.test-helpers';
import { NumbersHandler } from './numbers.handler';

const schema = uniqueName('it_numbers');
const store = new EventStore(schema);
const context: CommandContext = { correlationId: 'corr-numbers', causationId: 'cause', traceparent: null };
let ds: DataSource;
let handler: NumbersHandler;

const commandOf = <T, K extends string>(type: K, data: T, commandId: string = randomUUID()): CommandMessage<T, K> => ({ commandId, type, issuedAt: new Date().toISOString(), data });
const assignment = (subAccountId = 'acme_hq'): NumberInput => ({ accountId: 'acme', subAccountId, inboundWebhookUrl: 'https://hooks.example.com/inbound', helpText: 'ACME. Reply STOP to end.' });
const put = (number: string, input = assignment(), commandId?: string) => handler.putNumber(commandOf('PutNumber', { number, assignment: input }, commandId), context);
const remove = (number: string) => handler.removeNumber(commandOf('RemoveNumber', { number }), context);
const get = (number: string) => handler.getNumber(commandOf('GetNumber', { number }));
const list = (subAccountId: string | null = null) => handler.listNumbers(commandOf('ListNumbers', { subAccountId }));

function ok<T>(reply: CommandReply<T>): T {
  if (!reply.ok) throw new Error(`refused: ${JSON.stringify(reply.failure)}`);
  return reply.result;
}

beforeAll(async () => {
  ds = await openTestDataSource(4);
  await migrateSmsBatchSchema(ds, schema);
  const logger = testLogger();
  handler = new NumbersHandler(ds, store, pipelineOf(ds, store, schema, logger), logger);
});

afterAll(async () => {
  await dropSchema(ds, schema);
  await ds.destroy();
});

describe('NumbersHandler', () => {
  it('assigns numbers to sub-accounts; the same PUT again and a redelivered command append nothing', async () => {
    const commandId = randomUUID();
    const view = ok(await put('447700100100', assignment(), commandId));
    expect(view).toEqual({ number: '447700100100', ...assignment(), assignedAt: expect.stringMatching(/Z$/) });
    expect(ok(await put('447700100100', assignment(), commandId))).toEqual(view);
    expect(ok(await put('447700100100'))).toEqual(view);
    expect(await store.readStream(ds.manager, NUMBERS_STREAM)).toHaveLength(1);
    expect(ok(await get('447700100100'))).toEqual(view);
  });

  it('lists every number or one sub-account’s, ordered, and moves a number', async () => {
    ok(await put('60606', assignment('acme_eu')));
    ok(await put('447700100099'));
    expect(ok(await list()).numbers.map((n) => n.number)).toEqual(['447700100099', '447700100100', '60606']);
    expect(ok(await list('acme_eu')).numbers.map((n) => n.number)).toEqual(['60606']);
    ok(await put('447700100099', assignment('acme_eu')));
    expect(ok(await list('acme_eu')).numbers.map((n) => n.number)).toEqual(['447700100099', '60606']);
  });

  it('releases a number; an unknown one is 404 and an invalid one 400, with nothing written', async () => {
    expect(ok(await remove('60606'))).toEqual({ number: '60606' });
    expect(await get('60606')).toMatchObject({ ok: false, failure: { status: 404 } });
    const before = (await store.readStream(ds.manager, NUMBERS_STREAM)).length;
    expect(await remove('60606')).toMatchObject({ ok: false, failure: { status: 404 } });
    expect(await put('+4477', assignment())).toMatchObject({ ok: false, failure: { status: 400, code: 1000 } });
    expect(await store.readStream(ds.manager, NUMBERS_STREAM)).toHaveLength(before);
  });
});
