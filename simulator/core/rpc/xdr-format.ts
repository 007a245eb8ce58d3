// `xdrFormat` as stellar-rpc takes it: absent, "base64" or "json"; anything else refused with stellar-rpc's words
// ("got 'xml': expected base64, json for optional 'xdrFormat'"), each method with its own error code (the caller
// picks it). JSON is stellar-xdr's own JSON (@stellar/stellar-xdr-json, the Rust XDR compiled to WASM), which is
// what stellar-rpc's xdr2json produces.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { decode, initSync } from '@stellar/stellar-xdr-json';

export type XdrFormat = 'base64' | 'json';

/** The request's format, or the refusal's message. */
export function xdrFormatOf(p: Readonly<Record<string, unknown>>): XdrFormat | { refused: string } {
  const f = p.xdrFormat;
  if (f === undefined || f === '' || f === 'base64') return 'base64';
  if (f === 'json') return 'json';
  return { refused: `got '${String(f)}': expected base64, json for optional 'xdrFormat'` };
}

/** Converts base64 XDR to stellar-xdr JSON; the WASM is instantiated on first use (initSync keeps one instance). */
export class XdrJson {
  private ready = false;

  /** `b64` (an XDR value of `type`, as Stellar-*.x names it) as stellar-xdr's JSON value. */
  toJson(type: string, b64: string): unknown {
    if (!this.ready) {
      const pkg = createRequire(import.meta.url).resolve('@stellar/stellar-xdr-json/package.json');
      initSync(readFileSync(path.join(path.dirname(pkg), 'stellar_xdr_json_bg.wasm')));
      this.ready = true;
    }
    return JSON.parse(decode(type, b64));
  }
}
