/** Words of PromQL that are neither metrics nor functions. */
const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset', 'inf', 'nan']);

/**
 * The metric names a PromQL expression reads: what is left once strings, label matchers, range
 * durations and grouping clauses are taken out, less function names (followed by a parenthesis),
 * keywords, numbers and Grafana variables. Enough for the expressions of this repository's dashboard
 * and alert rules; not a full PromQL parser.
 */
export function metricNamesOf(expression: string): string[] {
  const bare = expression
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\{?\w+\}?/g, ' ');
  const names = new Set<string>();
  // Not inside a number or a duration (the h of `offset 1h`).
  for (const match of bare.matchAll(/(?<![A-Za-z0-9_:.])[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const word = match[0];
    const after = bare.slice((match.index ?? 0) + word.length).trimStart();
    if (after.startsWith('(') || KEYWORDS.has(word.toLowerCase())) continue;
    names.add(word);
  }
  return [...names];
}

/** Names of the samples in a Prometheus text exposition (histograms: their _bucket, _sum and _count). */
export function sampleNamesOf(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const line of exposition.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const name = /^[A-Za-z_:][A-Za-z0-9_:]*/.exec(line)?.[0];
    if (name) names.add(name);
  }
  return names;
}
