import type { RunningStack } from '@seed/platform-testing';
import { sendBatch, ukMobile, type Account } from './support/http';
import { getMessage, messageInState } from './support/sms-read';
import { useStack } from './support/stack';

const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

/** A carrier that cannot be reached: nothing is sent, and what expires meanwhile ends undelivered. */
describe('carrier unreachable', () => {
  // A port nothing listens on: the SMPP session keeps reconnecting and never binds.
  const ctx = useStack({ SMPP_URL: 'smpp://seed:secret@127.0.0.1:9' });
  let stack: RunningStack;
  let account: Account;

  beforeAll(async () => {
    ({ stack } = ctx);
    account = await stack.createAccount();
  });

  it('keeps a message queued, and ends one whose expiry passes undelivered (expired)', async () => {
    const batch = await sendBatch(stack, account, {
      includeMessagesInResponse: true,
      messages: [
        { destination: ukMobile(7001), text: 'Waits for the carrier' },
        { destination: ukMobile(7002), text: 'Expires first', expiry: inMs(1500) },
      ],
    });
    const [waiting, expiring] = (batch.messages ?? []).map((m) => m.umid) as [string, string];

    const expired = await messageInState(stack, account, expiring, 'undelivered');
    expect(expired.status).toMatchObject({ state: 'undelivered', detail: 'expiry passed before hand-off' });
    expect((await getMessage(stack, account, waiting)).status.state).toBe('queued');
  });
});
