import { startStack, type RunningStack } from '@seed/platform-testing';

describe('the platform started as npm start starts it', () => {
  let stack: RunningStack;

  beforeAll(async () => {
    stack = await startStack();
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('accepts a batch from a freshly created account', async () => {
    const account = await stack.createAccount();
    const res = await fetch(`${stack.messagingUrl}/sms/v1/${account.subAccountId}/many`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ template: { text: 'Hello' }, messages: [{ destination: '+447911123456' }] }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { acceptedCount: number; rejectedCount: number };
    expect(body).toMatchObject({ acceptedCount: 1, rejectedCount: 0 });
  });
});
