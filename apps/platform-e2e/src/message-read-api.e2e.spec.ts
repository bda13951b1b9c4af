import { randomUUID } from 'node:crypto';
import type { RunningStack } from '@seed/platform-testing';
import { addSubAccount } from './support/admin';
import { expectApiError, REJECTED, sendBatch, ukMobile, type Account } from './support/http';
import { getBatch, getBatchRaw, getMessage, getMessageRaw, messageInState } from './support/sms-read';
import { useStack } from './support/stack';

/**
 * The message and batch read API is scoped like every operation: a key reads only its account's
 * sub-accounts (another account's: 403), and a message or batch of another sub-account is
 * answered as unknown (404, 1300), the same as an id that does not exist or is not an id at all.
 */
describe('message and batch read API: scoping', () => {
  const ctx = useStack();
  let stack: RunningStack;
  let owner: Account;
  let stranger: Account;
  let branch: Account;
  let hqUmid: string;
  let hqBatchId: string;
  let rejectedUmid: string;
  let branchUmid: string;
  let branchBatchId: string;

  beforeAll(async () => {
    stack = ctx.stack;
    owner = await stack.createAccount();
    stranger = await stack.createAccount();
    branch = { ...owner, subAccountId: `${owner.accountId}_branch` };
    await addSubAccount(stack, owner.accountId, branch.subAccountId);
    const hq = await sendBatch(stack, owner, {
      includeMessagesInResponse: true,
      template: { text: 'Read me' },
      messages: [{ destination: ukMobile(7001), clientMessageId: 'hq-1' }, { destination: 'nonsense' }],
    });
    [hqUmid, rejectedUmid] = (hq.messages ?? []).map((m) => m.umid) as [string, string];
    hqBatchId = hq.batchId;
    const inBranch = await sendBatch(stack, branch, { includeMessagesInResponse: true, messages: [{ destination: ukMobile(7002), text: 'Branch' }] });
    branchUmid = inBranch.messages?.[0]?.umid as string;
    branchBatchId = inBranch.batchId;
    await messageInState(stack, owner, hqUmid, 'delivered');
  });

  it("reads a message and a batch of the key's own sub-accounts", async () => {
    expect(await getMessage(stack, owner, hqUmid)).toMatchObject({
      umid: hqUmid,
      batchId: hqBatchId,
      clientMessageId: 'hq-1',
      subAccountId: owner.subAccountId,
      destination: ukMobile(7001),
      status: { state: 'delivered' },
    });
    expect(await getMessage(stack, branch, branchUmid)).toMatchObject({ umid: branchUmid, subAccountId: branch.subAccountId });
    expect(await getBatch(stack, branch, branchBatchId)).toMatchObject({ batchId: branchBatchId, subAccountId: branch.subAccountId, acceptedCount: 1 });
  });

  it('reads a rejected message with its rejection description', async () => {
    const view = await getMessage(stack, owner, rejectedUmid);
    expect(view.status).toMatchObject({ state: 'rejected', detail: REJECTED.invalidMsisdn });
    expect(view.history.map((h) => h.state)).toEqual(['rejected']);
  });

  it('accepts the umid in upper case', async () => {
    expect((await getMessage(stack, owner, hqUmid.toUpperCase())).umid).toBe(hqUmid);
  });

  it("refuses another account's key on this account's sub-account path: 403, 1001", async () => {
    await expectApiError(await getMessageRaw(stack, stranger, hqUmid, owner.subAccountId), 403, 1001);
    await expectApiError(await getBatchRaw(stack, stranger, hqBatchId, owner.subAccountId), 403, 1001);
  });

  it("answers another account's umid under the key's own sub-account as unknown: 404, 1300", async () => {
    await expectApiError(await getMessageRaw(stack, stranger, hqUmid), 404, 1300);
    await expectApiError(await getBatchRaw(stack, stranger, hqBatchId), 404, 1300);
  });

  it('answers a message or batch of another sub-account of the same account as unknown: 404, 1300', async () => {
    await expectApiError(await getMessageRaw(stack, owner, branchUmid), 404, 1300);
    await expectApiError(await getMessageRaw(stack, branch, hqUmid), 404, 1300);
    await expectApiError(await getBatchRaw(stack, owner, branchBatchId), 404, 1300);
    await expectApiError(await getBatchRaw(stack, branch, hqBatchId), 404, 1300);
  });

  it('answers an unknown umid or batchId: 404, 1300', async () => {
    await expectApiError(await getMessageRaw(stack, owner, randomUUID()), 404, 1300);
    await expectApiError(await getBatchRaw(stack, owner, randomUUID()), 404, 1300);
  });

  it('answers a malformed umid or batchId: 404, 1300', async () => {
    for (const bad of ['not-a-uuid', `${hqUmid}x`, hqUmid.replace(/-/g, ''), "1' OR '1'='1"]) {
      await expectApiError(await getMessageRaw(stack, owner, bad), 404, 1300);
      await expectApiError(await getBatchRaw(stack, owner, bad), 404, 1300);
    }
  });

  it('refuses a missing or unknown key: 401, 1200', async () => {
    await expectApiError(await getMessageRaw(stack, { ...owner, apiKey: '' }, hqUmid), 401, 1200);
    await expectApiError(await getMessageRaw(stack, { ...owner, apiKey: 'not-a-key' }, hqUmid), 401, 1200);
    await expectApiError(await getBatchRaw(stack, { ...owner, apiKey: 'not-a-key' }, hqBatchId), 401, 1200);
  });
});
