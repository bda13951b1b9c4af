import { eventually } from '@seed/platform-testing';
import { AgentTokenDb, createToken, jwtPart, logIn } from './support/agent';
import { useProcesses } from './support/processes';
import { ukMobile, type Account } from './support/http';
import { smsc } from './support/smsc';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * agent-token dies after the guest-link SMS was requested and before it recorded GuestLinkSent.
 * sms-batch is down while the request waits, so the kill lands in that window for certain; once
 * sms-batch is back the SMS goes out, and agent-token, started again, requests it once more.
 */
describe('guest-link SMS across an agent-token crash', () => {
  const ctx = useProcesses({}, ['agent-token']);
  let db: AgentTokenDb;
  let account: Account;

  beforeAll(async () => {
    db = new AgentTokenDb(ctx.stack);
    account = await ctx.stack.createAccount();
  });
  afterAll(() => db?.close());

  it('sends the SMS once and records it once when agent-token is killed between the request and the record', async () => {
    const { stack } = ctx;
    const phone = ukMobile(8001);
    const token = await createToken(stack, account.apiKey, { create_room: true, phone_number: `+${phone}` });
    const roomId = jwtPart(token.auth_token, 1)['room'] as string;
    const guestLinkSent = () => db.events(`type = 'GuestLinkSent' AND data->>'roomId' = $1`, [roomId]);

    expect(await stack.kill('sms-batch', 'SIGTERM')).toBeTruthy();
    expect((await logIn(stack, token.auth_token)).room?.state).toBe('agent_joined');
    // The follower has sent SubmitBatch and waits for sms-batch's answer.
    await sleep(1500);
    expect(await stack.kill('agent-token', 'SIGKILL')).toBe('SIGKILL');

    await stack.start('sms-batch');
    const sms = await smsc(stack.smscUrl).only(phone, 60_000);
    expect(sms.text).toBe(`Join your video call: ${token.guest_link}`);
    expect(await guestLinkSent()).toHaveLength(0); // sent, not recorded

    await stack.start('agent-token');
    const [recorded] = await eventually(async () => {
      const events = await guestLinkSent();
      return events.length > 0 ? events : undefined;
    }, 60_000);
    await sleep(1500);
    expect(await smsc(stack.smscUrl).messages(phone)).toHaveLength(1);
    expect(await guestLinkSent()).toHaveLength(1);
    const queued = await ctx.db.query<{ umid: string }>(
      `SELECT data->>'umid' AS umid FROM ${ctx.db.table('events')} WHERE type = 'MessageQueued' AND data->>'clientBatchId' = $1`,
      [`guest-link-${roomId}`],
    );
    expect(queued).toEqual([{ umid: recorded?.data['umid'] }]);
  });
});
