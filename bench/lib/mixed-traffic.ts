// Closed-loop mixed traffic for the load test: W workers, each picking an operation by weight, round-robin
// over the instances, until a deadline. Records latency per operation and outcomes by status and code.
import { TransactionBuilder } from '@stellar/stellar-sdk';
import { summarize, type Summary } from './stats.ts';
import { KEY_HEADER, issueBody, type IssuerIdentity } from './vault-client.ts';

export const OPS = ['verify', 'count', 'list', 'prepare', 'cycle'] as const;
export type Op = (typeof OPS)[number];
export const OP_LABEL: Record<Op, string> = {
  verify: 'read: POST verify-vc',
  count: 'read: GET vc-count',
  list: 'read: POST list-vc-ids',
  prepare: 'write: POST vc/issue (prepare)',
  cycle: 'write: full issue cycle (prepare → sign → submit → final)',
};

export type Mix = Record<Op, number>;

export function parseMix(text: string): Mix {
  const mix = Object.fromEntries(OPS.map((o) => [o, 0])) as Mix;
  for (const part of text.split(',')) {
    const [name, weight] = part.split(':') as [string, string | undefined];
    if (!OPS.includes(name as Op) || !weight || !(Number(weight) >= 0))
      throw new Error(`--mix: expected op:weight with op in ${OPS.join(', ')}, got ${part}`);
    mix[name as Op] = Number(weight);
  }
  if (Object.values(mix).every((w) => w === 0)) throw new Error('--mix: every weight is 0');
  return mix;
}

export interface ReadVault {
  owner: string;
  /** Key bound to the owner (list-vc-ids checks the binding). */
  key: string;
  vcIds: string[];
}

export interface Worker {
  issuer: IssuerIdentity;
  /** The worker's own destination vault owner (issues into one vault must not race). */
  owner: string;
}

export interface OpStats {
  latency: Summary;
  outcomes: Record<string, number>;
}

export interface TrafficResult {
  seconds: number;
  /** HTTP requests sent (a full cycle is two). */
  requests: number;
  operations: number;
  /** Latency over every operation. */
  overall: Summary;
  perOp: Record<Op, OpStats>;
  outcomes: Record<string, number>;
}

const pick = <T>(xs: readonly T[], r: number): T => xs[Math.floor(r * xs.length) % xs.length]!;

async function call(
  url: string,
  init: { method: 'GET' | 'POST'; key: string; body?: unknown },
): Promise<{ status: number; code: string; json: unknown }> {
  const res = await fetch(url, {
    method: init.method,
    headers: { [KEY_HEADER]: init.key, ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const code = res.ok ? '' : String((json as { error?: string } | undefined)?.error ?? '');
  return { status: res.status, code, json };
}

export async function runMixedTraffic(o: {
  urls: string[];
  workers: Worker[];
  reads: ReadVault[];
  mix: Mix;
  seconds: number;
  tag: string;
}): Promise<TrafficResult> {
  const weights = OPS.map((op) => o.mix[op]);
  const total = weights.reduce((a, b) => a + b, 0);
  const choose = (): Op => {
    let r = Math.random() * total;
    for (let i = 0; i < OPS.length; i++) {
      r -= weights[i]!;
      if (r < 0) return OPS[i]!;
    }
    return OPS[OPS.length - 1]!;
  };
  const samples = Object.fromEntries(OPS.map((op) => [op, [] as number[]])) as Record<Op, number[]>;
  const outcomes = Object.fromEntries(OPS.map((op) => [op, {} as Record<string, number>])) as Record<
    Op,
    Record<string, number>
  >;
  let requests = 0;
  let rr = 0;
  const nextUrl = () => o.urls[rr++ % o.urls.length]!;
  const count = (op: Op, label: string) => {
    outcomes[op][label] = (outcomes[op][label] ?? 0) + 1;
  };

  const runOp = async (op: Op, w: Worker, serial: number): Promise<string> => {
    const read = pick(o.reads, Math.random());
    const vcId = pick(read.vcIds, Math.random());
    const base = nextUrl();
    switch (op) {
      case 'verify':
        requests++;
        return label(
          await call(`${base}/contracts/vault/verify-vc`, {
            method: 'POST',
            key: read.key,
            body: { owner: read.owner, vcId },
          }),
        );
      case 'count':
        requests++;
        return label(
          await call(`${base}/contracts/vault/vc-count?owner=${read.owner}`, { method: 'GET', key: read.key }),
        );
      case 'list':
        requests++;
        return label(
          await call(`${base}/contracts/vault/list-vc-ids`, {
            method: 'POST',
            key: read.key,
            body: {
              owner: read.owner,
              offset: Math.floor(Math.random() * Math.max(1, read.vcIds.length - 10)),
              limit: 10,
            },
          }),
        );
      case 'prepare':
        requests++;
        return label(
          await call(`${base}/contracts/vc/issue`, {
            method: 'POST',
            key: w.issuer.key,
            body: issueBody(w.issuer, w.owner, `${o.tag}-p-${serial}`),
          }),
        );
      case 'cycle': {
        // Prepared on one instance, submitted on the next: the instances share nothing but the stores and the chain.
        requests++;
        const vc = `${o.tag}-c-${serial}`;
        const prepared = await call(`${base}/contracts/vc/issue`, {
          method: 'POST',
          key: w.issuer.key,
          body: issueBody(w.issuer, w.owner, vc, serial),
        });
        if (prepared.status !== 200) return `prepare ${label(prepared)}`;
        const { xdr, network } = prepared.json as { xdr: string; network: string };
        const tx = TransactionBuilder.fromXdr(xdr, network);
        tx.sign(w.issuer.keypair);
        requests++;
        const submitted = await call(`${nextUrl()}/contracts/vc/issue`, {
          method: 'POST',
          key: w.issuer.key,
          body: { signedXdr: tx.toXdr() },
        });
        return submitted.status === 200 ? '200' : `submit ${label(submitted)}`;
      }
    }
  };

  const t0 = performance.now();
  const end = t0 + o.seconds * 1000;
  let serial = 0;
  await Promise.all(
    o.workers.map(async (w) => {
      for (let i = 0; i < 10_000_000 && performance.now() < end; i++) {
        const op = choose();
        const s = performance.now();
        let outcome: string;
        try {
          outcome = await runOp(op, w, serial++);
        } catch (e) {
          outcome =
            e instanceof Error
              ? e.name === 'TimeoutError'
                ? 'client timeout'
                : ((e.cause as { code?: string } | undefined)?.code ?? e.message.slice(0, 60))
              : String(e);
        }
        samples[op].push(performance.now() - s);
        count(op, outcome);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const perOp = Object.fromEntries(
    OPS.map((op) => [op, { latency: summarize(samples[op]), outcomes: outcomes[op] }]),
  ) as Record<Op, OpStats>;
  const all: Record<string, number> = {};
  for (const op of OPS) for (const [k, n] of Object.entries(outcomes[op])) all[k] = (all[k] ?? 0) + n;
  const overall = summarize(OPS.flatMap((op) => samples[op]));
  return { seconds, requests, operations: overall.count, overall, perOp, outcomes: all };
}

function label(r: { status: number; code: string }): string {
  return r.code ? `${r.status} ${r.code}` : String(r.status);
}
