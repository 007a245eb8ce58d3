// A small Prometheus registry — counters, gauges, histograms with fixed buckets, labels — and the text
// exposition format 0.0.4 (https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format),
// plus a strict parser of that format for tests and tools. Enough for a few dozen families; no
// summaries, no exemplars, no OpenMetrics.

/** The Content-Type of the text exposition format 0.0.4. */
export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export type MetricType = 'counter' | 'gauge' | 'histogram';
export type LabelValues<L extends string> = { readonly [K in L]: string | number };

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

interface FamilyOptions<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
  /** Runs before each exposition, to set values read from elsewhere (process memory, derived ratios). */
  collect?: () => void;
}

/** One line of the exposition: a sample name (with `_bucket`/`_sum`/`_count` for histograms), labels, value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

abstract class Family<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  abstract readonly type: MetricType;
  readonly #collect: (() => void) | undefined;

  constructor(options: FamilyOptions<L>) {
    if (!METRIC_NAME.test(options.name)) throw new Error(`invalid metric name: ${options.name}`);
    for (const l of options.labelNames ?? []) {
      if (!LABEL_NAME.test(l) || l.startsWith('__') || l === 'le') throw new Error(`invalid label name: ${l}`);
    }
    this.name = options.name;
    this.help = options.help;
    this.labelNames = options.labelNames ?? [];
    this.#collect = options.collect;
  }

  /** Series key: label values in declared order. A missing value is the empty string. */
  protected key(labels: LabelValues<L> | undefined): string {
    // The text of JSON.stringify(values), built without the intermediate array.
    const names = this.labelNames;
    if (names.length === 0) return '[]';
    let key = '[';
    for (let i = 0; i < names.length; i++) {
      if (i > 0) key += ',';
      key += JSON.stringify(String(labels?.[names[i]!] ?? ''));
    }
    return `${key}]`;
  }

  protected labelsOf(key: string): Record<string, string> {
    const values = JSON.parse(key) as string[];
    return Object.fromEntries(this.labelNames.map((l, i) => [l, values[i] ?? '']));
  }

  collect(): Sample[] {
    this.#collect?.();
    return this.samples();
  }

  protected abstract samples(): Sample[];
}

export class Counter<L extends string = never> extends Family<L> {
  readonly type = 'counter';
  readonly #values = new Map<string, number>();

  constructor(options: FamilyOptions<L>) {
    super(options);
    if (this.labelNames.length === 0) this.#values.set(this.key(undefined), 0);
  }

  inc(labels: LabelValues<L>, value = 1): void {
    if (!(value >= 0)) throw new Error(`counter ${this.name} can only increase`);
    const k = this.key(labels);
    this.#values.set(k, (this.#values.get(k) ?? 0) + value);
  }

  /** For counters mirrored from a monotonic source (process CPU time); normal code uses `inc`. */
  setTotal(labels: LabelValues<L>, value: number): void {
    this.#values.set(this.key(labels), value);
  }

  get(labels: LabelValues<L>): number {
    return this.#values.get(this.key(labels)) ?? 0;
  }

  /** Every series with its labels and value. */
  entries(): { labels: Record<string, string>; value: number }[] {
    return [...this.#values].map(([k, value]) => ({ labels: this.labelsOf(k), value }));
  }

  protected samples(): Sample[] {
    return [...this.#values].map(([k, value]) => ({ name: this.name, labels: this.labelsOf(k), value }));
  }
}

export class Gauge<L extends string = never> extends Family<L> {
  readonly type = 'gauge';
  readonly #values = new Map<string, number>();

  set(labels: LabelValues<L>, value: number): void {
    this.#values.set(this.key(labels), value);
  }

  inc(labels: LabelValues<L>, value = 1): void {
    const k = this.key(labels);
    this.#values.set(k, (this.#values.get(k) ?? 0) + value);
  }

  dec(labels: LabelValues<L>, value = 1): void {
    this.inc(labels, -value);
  }

  get(labels: LabelValues<L>): number | undefined {
    return this.#values.get(this.key(labels));
  }

  protected samples(): Sample[] {
    return [...this.#values].map(([k, value]) => ({ name: this.name, labels: this.labelsOf(k), value }));
  }
}

interface HistogramSeries {
  /** Per bucket, not cumulative; the last slot is +Inf. */
  counts: number[];
  sum: number;
  count: number;
}

export class Histogram<L extends string = never> extends Family<L> {
  readonly type = 'histogram';
  readonly buckets: readonly number[];
  readonly #series = new Map<string, HistogramSeries>();

  constructor(options: FamilyOptions<L> & { buckets: readonly number[] }) {
    super(options);
    const b = [...options.buckets];
    if (b.length === 0 || b.some((x, i) => !Number.isFinite(x) || (i > 0 && x <= b[i - 1]!))) {
      throw new Error(`histogram ${this.name}: buckets must be finite and strictly increasing`);
    }
    this.buckets = b;
    if (this.labelNames.length === 0) this.#series.set(this.key(undefined), this.empty());
  }

  observe(labels: LabelValues<L>, value: number): void {
    if (Number.isNaN(value)) return;
    const k = this.key(labels);
    let s = this.#series.get(k);
    if (!s) this.#series.set(k, (s = this.empty()));
    let i = this.buckets.findIndex((upper) => value <= upper);
    if (i < 0) i = this.buckets.length;
    s.counts[i]! += 1;
    s.sum += value;
    s.count += 1;
  }

  /** Count and sum of one series (tests). */
  get(labels: LabelValues<L>): { count: number; sum: number } {
    const s = this.#series.get(this.key(labels));
    return { count: s?.count ?? 0, sum: s?.sum ?? 0 };
  }

  private empty(): HistogramSeries {
    return { counts: new Array<number>(this.buckets.length + 1).fill(0), sum: 0, count: 0 };
  }

  protected samples(): Sample[] {
    const out: Sample[] = [];
    for (const [k, s] of this.#series) {
      const labels = this.labelsOf(k);
      let cumulative = 0;
      [...this.buckets, Number.POSITIVE_INFINITY].forEach((upper, i) => {
        cumulative += s.counts[i]!;
        out.push({ name: `${this.name}_bucket`, labels: { ...labels, le: formatValue(upper) }, value: cumulative });
      });
      out.push({ name: `${this.name}_sum`, labels, value: s.sum });
      out.push({ name: `${this.name}_count`, labels, value: s.count });
    }
    return out;
  }
}

export type AnyFamily = Counter<string> | Gauge<string> | Histogram<string>;

export class Registry {
  readonly #families = new Map<string, AnyFamily>();

  counter<L extends string = never>(options: FamilyOptions<L>): Counter<L> {
    return this.add(new Counter<L>(options));
  }

  gauge<L extends string = never>(options: FamilyOptions<L>): Gauge<L> {
    return this.add(new Gauge<L>(options));
  }

  histogram<L extends string = never>(options: FamilyOptions<L> & { buckets: readonly number[] }): Histogram<L> {
    return this.add(new Histogram<L>(options));
  }

  get(name: string): AnyFamily | undefined {
    return this.#families.get(name);
  }

  /** The text exposition format 0.0.4, families in registration order. */
  expose(): string {
    const lines: string[] = [];
    for (const f of this.#families.values()) {
      lines.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`);
      for (const s of f.collect()) lines.push(`${s.name}${formatLabels(s.labels)} ${formatValue(s.value)}`);
    }
    return `${lines.join('\n')}\n`;
  }

  private add<F extends AnyFamily>(family: F): F {
    if (this.#families.has(family.name)) throw new Error(`metric ${family.name} is already registered`);
    this.#families.set(family.name, family);
    return family;
  }
}

export function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Number.POSITIVE_INFINITY) return '+Inf';
  if (v === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(v);
}

const escapeHelp = (s: string) => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
const escapeLabel = (s: string) => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

function formatLabels(labels: Record<string, string>): string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return '';
  return `{${entries.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',')}}`;
}

// ---- parsing (tests and tools) ----

export interface ParsedFamily {
  name: string;
  type: MetricType | 'summary' | 'untyped';
  help?: string;
  samples: Sample[];
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?[ \t]+(\S+)(?:[ \t]+(-?\d+))?$/;
const LABEL_PAIR = /^[ \t]*([a-zA-Z_][a-zA-Z0-9_]*)[ \t]*=[ \t]*"((?:[^"\\\n]|\\[\\"n])*)"[ \t]*(,|$)/;

/**
 * Parses the text format 0.0.4 strictly: every line is a HELP, a TYPE, another comment, blank, or a
 * well-formed sample; a sample belongs to the family of the latest TYPE whose name it extends. Throws on
 * anything else, so a test that parses the output also proves it well-formed.
 */
export function parseExposition(text: string): Map<string, ParsedFamily> {
  const families = new Map<string, ParsedFamily>();
  let current: ParsedFamily | undefined;
  const familyOf = (name: string) => {
    const f = families.get(name) ?? { name, type: 'untyped' as const, samples: [] };
    families.set(name, f);
    return f;
  };
  text.split('\n').forEach((line, i) => {
    const fail = (why: string) => {
      throw new Error(`line ${i + 1}: ${why}: ${line}`);
    };
    if (line.trim() === '') return;
    if (line.startsWith('#')) {
      const m = /^#[ \t]+(HELP|TYPE)[ \t]+([a-zA-Z_:][a-zA-Z0-9_:]*)(?:[ \t]+(.*))?$/.exec(line);
      if (!m) return;
      const f = familyOf(m[2]!);
      if (m[1] === 'HELP') {
        f.help = (m[3] ?? '').replace(/\\(\\|n)/g, (_, c: string) => (c === 'n' ? '\n' : '\\'));
      } else {
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(m[3] ?? '')) fail('unknown type');
        if (f.samples.length > 0) fail('TYPE after samples');
        f.type = m[3] as ParsedFamily['type'];
        current = f;
      }
      return;
    }
    const m = SAMPLE_LINE.exec(line);
    if (!m) return fail('not a sample');
    const labels: Record<string, string> = {};
    let rest = m[3] ?? '';
    while (rest.trim() !== '') {
      const p = LABEL_PAIR.exec(rest);
      if (!p) return fail('bad labels');
      if (p[1]! in labels) fail(`label ${p[1]} twice`);
      labels[p[1]!] = p[2]!.replace(/\\([\\"n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
      rest = rest.slice(p[0].length);
    }
    const raw = m[4]!;
    const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : raw === 'NaN' ? NaN : Number(raw);
    if (Number.isNaN(value) && raw !== 'NaN') fail('bad value');
    const name = m[1]!;
    const suffixes = current?.type === 'histogram' ? ['_bucket', '_sum', '_count'] : current?.type === 'summary' ? ['_sum', '_count'] : [];
    const owner = current && (name === current.name || suffixes.some((s) => name === current!.name + s)) ? current : familyOf(name);
    owner.samples.push({ name, labels, value });
  });
  return families;
}
