import { describe, expect, it } from 'vitest';
import { formatValue, parseExposition, Registry } from './prometheus.ts';

describe('text exposition format 0.0.4', () => {
  it('writes HELP, TYPE and samples; histogram buckets cumulative with +Inf, _sum and _count', () => {
    const r = new Registry();
    const c = r.counter({ name: 'jobs_total', help: 'Jobs done.', labelNames: ['kind'] });
    c.inc({ kind: 'a' });
    c.inc({ kind: 'a' }, 2);
    c.inc({ kind: 'b' });
    r.gauge({ name: 'temperature', help: 'Now.' }).set({}, -1.5);
    const h = r.histogram({ name: 'wait_seconds', help: 'Waits.', labelNames: ['q'], buckets: [0.1, 1] });
    for (const v of [0.05, 0.1, 0.5, 3]) h.observe({ q: 'x' }, v);
    expect(r.expose()).toBe(
      [
        '# HELP jobs_total Jobs done.',
        '# TYPE jobs_total counter',
        'jobs_total{kind="a"} 3',
        'jobs_total{kind="b"} 1',
        '# HELP temperature Now.',
        '# TYPE temperature gauge',
        'temperature -1.5',
        '# HELP wait_seconds Waits.',
        '# TYPE wait_seconds histogram',
        'wait_seconds_bucket{q="x",le="0.1"} 2',
        'wait_seconds_bucket{q="x",le="1"} 3',
        'wait_seconds_bucket{q="x",le="+Inf"} 4',
        'wait_seconds_sum{q="x"} 3.65',
        'wait_seconds_count{q="x"} 4',
        '',
      ].join('\n'),
    );
  });

  it('labelless counters and histograms start at 0; labelled families with no series print only HELP/TYPE', () => {
    const r = new Registry();
    r.counter({ name: 'a_total', help: 'A.' });
    r.histogram({ name: 'b_seconds', help: 'B.', buckets: [1] });
    r.counter({ name: 'c_total', help: 'C.', labelNames: ['x'] });
    const f = parseExposition(r.expose());
    expect(f.get('a_total')!.samples).toEqual([{ name: 'a_total', labels: {}, value: 0 }]);
    expect(f.get('b_seconds')!.samples.map((s) => `${s.name} ${s.value}`)).toEqual(['b_seconds_bucket 0', 'b_seconds_bucket 0', 'b_seconds_sum 0', 'b_seconds_count 0']);
    expect(f.get('c_total')).toMatchObject({ type: 'counter', help: 'C.', samples: [] });
  });

  it('escapes label values and help text, and parses them back', () => {
    const r = new Registry();
    r.counter({ name: 'odd_total', help: 'Back\\slash and\nnewline.', labelNames: ['v'] }).inc({ v: 'q"uote\\back\nline' });
    const text = r.expose();
    expect(text).toContain('# HELP odd_total Back\\\\slash and\\nnewline.');
    expect(text).toContain('odd_total{v="q\\"uote\\\\back\\nline"} 1');
    const f = parseExposition(text).get('odd_total')!;
    expect(f.help).toBe('Back\\slash and\nnewline.');
    expect(f.samples[0]!.labels.v).toBe('q"uote\\back\nline');
  });

  it.each([
    { given: 1, want: '1' },
    { given: 0.000001, want: '0.000001' },
    { given: 1e-7, want: '1e-7' },
    { given: Infinity, want: '+Inf' },
    { given: -Infinity, want: '-Inf' },
    { given: NaN, want: 'NaN' },
  ])('formats $given as $want', ({ given, want }) => {
    expect(formatValue(given)).toBe(want);
  });

  it.each([
    { name: 'metric name', make: (r: Registry) => r.counter({ name: '1bad', help: '' }) },
    { name: 'label name', make: (r: Registry) => r.counter({ name: 'ok', help: '', labelNames: ['bad-label'] }) },
    { name: 'reserved label', make: (r: Registry) => r.counter({ name: 'ok', help: '', labelNames: ['__x'] }) },
    { name: 'le label', make: (r: Registry) => r.histogram({ name: 'ok', help: '', labelNames: ['le'], buckets: [1] }) },
    { name: 'buckets not increasing', make: (r: Registry) => r.histogram({ name: 'ok', help: '', buckets: [1, 1] }) },
    { name: 'no buckets', make: (r: Registry) => r.histogram({ name: 'ok', help: '', buckets: [] }) },
    { name: 'duplicate family', make: (r: Registry) => (r.gauge({ name: 'ok', help: '' }), r.gauge({ name: 'ok', help: '' })) },
    { name: 'counter decrease', make: (r: Registry) => r.counter({ name: 'ok', help: '' }).inc({}, -1) },
  ])('refuses a bad $name', ({ make }) => {
    expect(() => make(new Registry())).toThrow();
  });
});

describe('parseExposition', () => {
  it.each([
    { name: 'a sample without value', text: 'x_total\n' },
    { name: 'an unquoted label value', text: 'x_total{a=b} 1\n' },
    { name: 'a bad value', text: 'x_total 1.2.3\n' },
    { name: 'a repeated label', text: 'x_total{a="1",a="2"} 1\n' },
    { name: 'an unknown type', text: '# TYPE x_total countr\n' },
    { name: 'TYPE after samples', text: 'x_total 1\n# TYPE x_total counter\n' },
  ])('rejects $name', ({ text }) => {
    expect(() => parseExposition(text)).toThrow();
  });

  it('reads timestamps, other comments and families without TYPE', () => {
    const f = parseExposition('# a comment\nup 1 1700000000000\n# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 2\n');
    expect(f.get('up')).toMatchObject({ type: 'untyped', samples: [{ name: 'up', value: 1 }] });
    expect(f.get('h')!.samples.map((s) => s.name)).toEqual(['h_bucket', 'h_sum', 'h_count']);
  });
});
