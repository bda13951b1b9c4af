// The summary `npm run bench:e2e` prints after its runs: for each side, the rate and the CPU its
// gateway processes spent per 10,000 messages (the carrier simulator counted apart: it stands in for
// the carrier of both), as medians with their spread, and the two ratios the comparison is about.

import { stackProcessOfRole } from '@seed/platform-testing';
import { spreadOf, type Spread } from './runner/result';

export { spreadOf, type Spread };

/** What one run reports about CPU: seconds per process, the carrier's among them. */
export interface CpuOfRun {
  messages: number;
  messagesPerSecond: number;
  cpuSeconds: Record<string, number>;
}

/** The process that plays the carrier for both sides; not part of either gateway's work. */
export const CARRIER_PROCESS = stackProcessOfRole('simulator').name;

export interface SideSummary {
  runs: number;
  messagesPerSecond: Spread;
  /** CPU seconds of the side's own processes (not the carrier's) per 10,000 messages. */
  cpuSecondsPer10k: Spread;
  /** The same, process by process (median and spread over the runs). */
  cpuSecondsPer10kByProcess: Record<string, Spread>;
  /** The carrier simulator's, for reference. */
  carrierCpuSecondsPer10k: Spread;
}

const round = (value: number, digits = 2): number => Number(value.toFixed(digits));

/** Per 10,000 messages, the carrier apart. */
export function cpuPer10k(run: CpuOfRun): { own: number; carrier: number; byProcess: Record<string, number> } {
  const scale = 10_000 / run.messages;
  const byProcess = Object.fromEntries(Object.entries(run.cpuSeconds).filter(([name]) => name !== CARRIER_PROCESS).map(([name, seconds]) => [name, round(seconds * scale)]));
  return { own: round(Object.values(byProcess).reduce((a, b) => a + b, 0)), carrier: round((run.cpuSeconds[CARRIER_PROCESS] ?? 0) * scale), byProcess };
}

export function summariseSide(runs: readonly CpuOfRun[]): SideSummary {
  const per = runs.map(cpuPer10k);
  const names = [...new Set(per.flatMap((p) => Object.keys(p.byProcess)))];
  return {
    runs: runs.length,
    messagesPerSecond: spreadOf(runs.map((r) => r.messagesPerSecond), 0),
    cpuSecondsPer10k: spreadOf(per.map((p) => p.own)),
    cpuSecondsPer10kByProcess: Object.fromEntries(names.map((name) => [name, spreadOf(per.map((p) => p.byProcess[name] ?? 0))])),
    carrierCpuSecondsPer10k: spreadOf(per.map((p) => p.carrier)),
  };
}

/** Platform against peer: rate ratio (higher is better) and CPU-per-message ratio (lower is better), of medians. */
export function comparison(platform: SideSummary, peer: SideSummary): { rateRatio: number; cpuPerMessageRatio: number } {
  return {
    rateRatio: round(platform.messagesPerSecond.median / peer.messagesPerSecond.median),
    cpuPerMessageRatio: round(platform.cpuSecondsPer10k.median / peer.cpuSecondsPer10k.median),
  };
}
