import { comparison, cpuPer10k, spreadOf, summariseSide } from './e2e-summary';

describe('the bench:e2e summary', () => {
  it('takes medians with their spread', () => {
    expect(spreadOf([3, 1, 2])).toEqual({ median: 2, min: 1, max: 3 });
    expect(spreadOf([4, 1, 2, 3])).toEqual({ median: 2.5, min: 1, max: 4 });
  });

  it('counts CPU per 10,000 messages without the carrier simulator, which plays the carrier for both sides', () => {
    expect(cpuPer10k({ messages: 5_000, messagesPerSecond: 1_000, cpuSeconds: { bearerbox: 1.5, smsbox: 1, 'smsc-simulator': 0.4 } })).toEqual({
      own: 5,
      carrier: 0.8,
      byProcess: { bearerbox: 3, smsbox: 2 },
    });
  });

  it('compares medians: the rate ratio and the CPU-per-message ratio', () => {
    const platform = summariseSide([
      { messages: 10_000, messagesPerSecond: 1_800, cpuSeconds: { 'sms-batch': 4, postgres: 3, 'smsc-simulator': 1 } },
      { messages: 10_000, messagesPerSecond: 1_700, cpuSeconds: { 'sms-batch': 5, postgres: 3, 'smsc-simulator': 1 } },
      { messages: 10_000, messagesPerSecond: 1_900, cpuSeconds: { 'sms-batch': 6, postgres: 3, 'smsc-simulator': 1 } },
    ]);
    const kannel = summariseSide([{ messages: 10_000, messagesPerSecond: 2_000, cpuSeconds: { bearerbox: 3, smsbox: 1, 'smsc-simulator': 1 } }]);
    expect(platform.messagesPerSecond).toEqual({ median: 1_800, min: 1_700, max: 1_900 });
    expect(platform.cpuSecondsPer10k).toEqual({ median: 8, min: 7, max: 9 });
    expect(platform.cpuSecondsPer10kByProcess['sms-batch']).toEqual({ median: 5, min: 4, max: 6 });
    expect(comparison(platform, kannel)).toEqual({ rateRatio: 0.9, cpuPerMessageRatio: 2 });
  });
});
