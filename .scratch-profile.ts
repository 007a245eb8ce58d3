import { Keypair } from '@stellar/stellar-sdk';
import { startVaultTestEnv } from './test-support/vault-api.ts';
import { didKeyOf } from './test-support/verification.ts';
import { signCredential, signPresentation } from './src/did/index.ts';

const env = await startVaultTestEnv({ network: 'testnet', rateLimits: undefined } as any);
const key = await env.mintKey({ role: 'early' });
const issuer = didKeyOf(Keypair.random());
const subject: Record<string, unknown> = { id: 'did:example:subject' };
const A = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const M = Number(process.argv[3] ?? 61_990);
for (let i = 0; i < M; i++) subject[A[i % 62]! + A[Math.floor(i / 62) % 62]! + A[Math.floor(i / 3844)]!] = i % 10;
const vc = await signCredential({
  credential: { '@context': ['https://www.w3.org/ns/credentials/v2'], type: ['VerifiableCredential'], issuer: issuer.did, credentialSubject: subject },
  verificationMethod: issuer.vm, secretKey: issuer.key.rawSecretKey(), created: new Date(env.clock.now() - 60000),
});
const vp = await signPresentation({ presentation: { holder: issuer.did, verifiableCredential: [vc] }, verificationMethod: issuer.vm, challenge: 'c1', secretKey: issuer.key.rawSecretKey(), created: new Date(env.clock.now() - 60000) });
const bodies = { vc: JSON.stringify({ verifiableCredential: vc }), vp: JSON.stringify({ verifiablePresentation: vp, options: { challenge: 'c1' } }) };
console.log('sizes', bodies.vc.length, bodies.vp.length);
const which = (process.argv[2] ?? 'vc') as 'vc' | 'vp';
const path = which === 'vc' ? '/credentials/verify' : '/presentations/verify';
const send = async () => {
  const r = await fetch(env.url + path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-key': key.key }, body: bodies[which] });
  const t = await r.text(); if (r.status !== 200) console.log(r.status, t.slice(0, 300));
};
for (let i = 0; i < 5; i++) await send();
const { Session } = await import('node:inspector/promises');
const PROF = process.argv[4] === 'prof'; const s = new Session(); s.connect(); await s.post('Profiler.setSamplingInterval', { interval: 100 });
if (PROF) { await s.post('Profiler.enable'); await s.post('Profiler.start'); }
const c0 = process.cpuUsage(); const N = 20;
for (let i = 0; i < N; i++) await send();
const c1 = process.cpuUsage(c0);
if (!PROF) { console.log('cpu ms/request', ((c1.user + c1.system) / 1000 / N).toFixed(1)); await env.close(); process.exit(0); }
const { profile } = await s.post('Profiler.stop');
console.log('cpu ms/request (server+client in process)', ((c1.user + c1.system) / 1000 / N).toFixed(1));
const self = new Map<string, number>(); const dt = profile.timeDeltas; const idx = new Map(profile.nodes.map((n: any) => [n.id, n]));
for (let i = 0; i < profile.samples.length; i++) { const n: any = idx.get(profile.samples[i]); const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`; self.set(k, (self.get(k) ?? 0) + (dt[i] ?? 0)); }
const tot = [...self.values()].reduce((a, b) => a + b, 0);
self.delete([...self.keys()].find((k) => k.startsWith('post node:inspector'))!);
for (const [k, v] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log((v / 1000 / N).toFixed(2).padStart(7), 'ms', k);
console.log('total sampled ms/req', (tot / 1000 / N).toFixed(1));
await env.close();
