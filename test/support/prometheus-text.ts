/** One sample of a scrape in the Prometheus text format. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The samples of a scrape (comments and blank lines skipped). */
export function parseSamples(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = SAMPLE.exec(line);
      if (!match) throw new Error(`not a sample line: ${line}`);
      const labels = Object.fromEntries([...(match[2] ?? '').matchAll(LABEL)].map(([, name, value]) => [name, value]));
      return { name: match[1], labels, value: Number(match[3]) };
    });
}

/** The value of the one sample named `name` whose labels include `labels`; throws when there is not exactly one. */
export function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value));
  if (found.length !== 1) throw new Error(`${found.length} samples ${name}${JSON.stringify(labels)}`);
  return found[0].value;
}

/**
 * Every series name a query may use, from the scrape's `# TYPE` lines: each
 * family, with `_bucket`, `_sum` and `_count` for histograms (and `_sum`,
 * `_count` for summaries).
 */
export function exportedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name);
    const parts = type === 'histogram' ? ['_bucket', '_sum', '_count'] : type === 'summary' ? ['_sum', '_count'] : [];
    for (const suffix of parts) names.add(name + suffix);
  }
  return names;
}

const NOT_METRICS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

/** The metric names a PromQL expression reads (not its functions, labels, durations or Grafana variables). */
export function metricNamesIn(expression: string): string[] {
  const bare = expression
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\$\{?\w+\}?/g, '')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  const names = [...bare.matchAll(/\b[a-zA-Z_:][a-zA-Z0-9_:]*\b(?!\s*\()/g)].map(([name]) => name);
  return [...new Set(names.filter((name) => !NOT_METRICS.has(name.toLowerCase())))];
}
