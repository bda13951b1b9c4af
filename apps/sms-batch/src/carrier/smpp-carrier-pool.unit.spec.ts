import type { SubmitSmPart } from '@seed/sms-batch-domain';
import type { SmppCarrier } from './smpp-carrier';
import type { SubmitOutcome } from './submit-outcome';
import { SmppCarrierPool } from './smpp-carrier-pool';

/** A session as the pool sees it: bound or not, so busy, answering with its name. */
function session(name: string, bound: boolean, load: number) {
  const state = { bound, load };
  const fake = {
    state,
    start: jest.fn(),
    stop: jest.fn(async () => undefined),
    isBound: () => state.bound,
    load: () => state.load,
    submit: async (): Promise<SubmitOutcome> => ({ ok: true, messageId: name }),
  };
  return fake;
}
function pool(...sessions: ReturnType<typeof session>[]): SmppCarrierPool {
  const carrier = new SmppCarrierPool('a-carrier');
  for (const s of sessions) carrier.add(s as unknown as SmppCarrier);
  return carrier;
}
const part = {} as SubmitSmPart;
const submittedOn = async (p: SmppCarrierPool) => ((await p.submit(part)) as { messageId: string }).messageId;

describe('SmppCarrierPool', () => {
  it('submits on the bound session with the fewest submits waiting or on the wire', async () => {
    const [a, b, c] = [session('a', true, 5), session('b', true, 2), session('c', false, 0)];
    const carrier = pool(a, b, c);
    expect(await submittedOn(carrier)).toBe('b');
    b.state.load = 9;
    expect(await submittedOn(carrier)).toBe('a');
  });

  it('is bound while any session is, and submits on the one that is', async () => {
    const [a, b] = [session('a', false, 0), session('b', false, 0)];
    const carrier = pool(a, b);
    expect(carrier.isBound()).toBe(false);
    b.state.bound = true;
    expect(carrier.isBound()).toBe(true);
    expect(carrier.boundSessions()).toBe(1);
    expect(await submittedOn(carrier)).toBe('b');
  });

  it('starts each session it is given, and stops every one', async () => {
    const sessions = [session('a', true, 0), session('b', true, 0)];
    const carrier = pool(...sessions);
    await carrier.stop();
    for (const s of sessions) {
      expect(s.start).toHaveBeenCalledTimes(1);
      expect(s.stop).toHaveBeenCalledTimes(1);
    }
    expect(carrier.size()).toBe(0);
  });

  it('answers "not bound" without a bound session, and closes a removed session', async () => {
    const a = session('a', false, 0);
    const carrier = pool(a);
    expect(await carrier.submit(part)).toEqual({ ok: false, temporary: true, status: -1, detail: 'not bound to the carrier' });
    await carrier.remove(a as unknown as SmppCarrier, 0);
    expect(a.stop).toHaveBeenCalledWith(0);
    expect(carrier.size()).toBe(0);
  });

  it("holds submits to the carrier's cap", async () => {
    const carrier = pool(session('a', true, 0));
    carrier.limiter.setRate(20);
    const started = Date.now();
    for (let i = 0; i < 12; i++) await carrier.submit(part);
    // 2 from the bucket, then one every 50 ms.
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
  });

});
