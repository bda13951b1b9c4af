import { isFetchablePort } from './stack-harness';

describe('isFetchablePort', () => {
  it('leaves out the ports fetch refuses, on which the tests could never see a service ready', async () => {
    expect(isFetchablePort(10080)).toBe(false);
    expect(isFetchablePort(10081)).toBe(true);
    expect(isFetchablePort(80)).toBe(false);
    // The reason, on this Node: fetch refuses 10080 itself, before any connection is tried.
    const refusal = await fetch('http://127.0.0.1:10080/').catch((error: unknown) => error);
    expect((refusal as Error & { cause?: Error }).cause?.message).toBe('bad port');
  });
});
