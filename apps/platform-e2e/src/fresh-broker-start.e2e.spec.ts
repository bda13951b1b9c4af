import { privateKafka, startStack, type PrivateInfra, type RunningStack } from '@seed/platform-testing';
import { sendBatch, ukMobile, type Account } from './support/http';
import { smsc } from './support/smsc';
import { useStarted } from './support/stack';
import { generate, receivedCodes } from './support/verify';

/**
 * The first `npm start` on a new machine: the broker is formatted and started while the services
 * start. They meet a refused port, then topics without a leader and a group coordinator that is
 * still loading its offsets topic ("The coordinator is loading and hence can't process requests");
 * every one of them must wait and come up, not exit.
 */
describe('start-up while a new broker is still starting', () => {
  let kafka: PrivateInfra | undefined;
  const ctx = useStarted(async () => {
    kafka = await privateKafka();
    kafka.upInBackground();
    // Started the moment the broker opens its port, as a service whose pod came up with the
    // broker's does: the first group joins meet the coordinator still loading.
    await kafka.listening();
    return startStack({ KAFKA_BROKERS: kafka.address });
  });
  let stack: RunningStack;
  let account: Account;

  beforeAll(async () => {
    stack = ctx.stack;
    account = await stack.createAccount();
  });

  afterAll(async () => {
    await kafka?.remove();
  });

  it('comes up and serves a batch to the carrier', async () => {
    const destination = ukMobile(61_001);
    const batch = await sendBatch(stack, account, { messages: [{ destination, text: 'First start' }] });
    expect(batch.batchId).toBeDefined();
    const sms = await smsc(stack.smscUrl).only(destination);
    expect(sms.text).toBe('First start');
  });

  it('comes up and serves a Verify generation whose code reaches the carrier', async () => {
    const msisdn = ukMobile(61_002);
    const view = await generate(stack, account, { destination: msisdn });
    expect(view.status).toBe('WAITING');
    expect(await receivedCodes(stack, msisdn, 1)).toHaveLength(1);
  });
});
