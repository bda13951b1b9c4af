import { alternation, figuresOf, spreadOf, summarise } from './result';

describe('spreadOf', () => {
  it('takes the middle value of an odd count', () => {
    expect(spreadOf([3, 1, 2])).toEqual({ median: 2, min: 1, max: 3 });
  });

  it('takes the mean of the middle two of an even count', () => {
    expect(spreadOf([4, 1, 2, 10])).toEqual({ median: 3, min: 1, max: 10 });
  });

  it('rounds to the digits asked for', () => {
    expect(spreadOf([1857.4, 1874.6, 1648.2], 0)).toEqual({ median: 1857, min: 1648, max: 1875 });
    expect(spreadOf([0.123, 0.456])).toEqual({ median: 0.29, min: 0.12, max: 0.46 });
  });

  it('is NaN for no values', () => {
    expect(spreadOf([])).toEqual({ median: NaN, min: NaN, max: NaN });
  });
});

describe('summarise', () => {
  it('spreads each metric and each process CPU over the runs, per side', () => {
    const summary = summarise([
      { side: 'platform', values: { messagesPerSecond: 1800 }, cpuSecondsByProcess: { 'sms-batch': 3 } },
      { side: 'kannel', values: { messagesPerSecond: 2500 } },
      { side: 'platform', values: { messagesPerSecond: 1900 }, cpuSecondsByProcess: { 'sms-batch': 4 } },
      { side: 'platform', values: { messagesPerSecond: 1700 }, cpuSecondsByProcess: { 'sms-batch': 5 } },
    ]);
    expect(summary).toEqual({
      'platform.messagesPerSecond': { median: 1800, min: 1700, max: 1900 },
      'platform.cpuSeconds.sms-batch': { median: 4, min: 3, max: 5 },
      'kannel.messagesPerSecond': { median: 2500, min: 2500, max: 2500 },
    });
  });

  it('leaves out values that are not finite (a run that measured nothing)', () => {
    expect(summarise([{ values: { ms: NaN } }, { values: { ms: 2 } }])).toEqual({ ms: { median: 2, min: 2, max: 2 } });
  });
});

describe('figuresOf', () => {
  it('flattens objects of numbers and keeps the rest as details', () => {
    expect(figuresOf({ run: 'run 1', webhooks: 10, latencyMs: { p50: 1, p99: 2 }, callbacks: { sent: 1, state: 'x' } })).toEqual({
      values: { webhooks: 10, 'latencyMs.p50': 1, 'latencyMs.p99': 2 },
      details: { run: 'run 1', callbacks: { sent: 1, state: 'x' } },
    });
  });
});

describe('alternation', () => {
  it('reverses the order on every second run', () => {
    expect([1, 2, 3].map((i) => alternation(i, ['platform', 'kannel']))).toEqual([
      ['platform', 'kannel'],
      ['kannel', 'platform'],
      ['platform', 'kannel'],
    ]);
  });
});
