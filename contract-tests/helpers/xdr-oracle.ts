// The official XDR definitions as a test oracle: stellar-xdr (Rust) compiled to WASM, from
// @stellar/stellar-xdr-json. Independent of @stellar/stellar-sdk's xdr classes on purpose: it works on base64
// strings and the XDR type names of Stellar-*.x, so an SDK upgrade cannot hide an encoding bug from it.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { decode, encode, initSync, types } from '@stellar/stellar-xdr-json';

let loaded: ReadonlySet<string> | undefined;

/** Instantiates the WASM once (synchronously, from the package's own .wasm file) and returns the XDR type names. */
export function xdrTypes(): ReadonlySet<string> {
  if (!loaded) {
    const pkg = createRequire(import.meta.url).resolve('@stellar/stellar-xdr-json/package.json');
    initSync(readFileSync(path.join(path.dirname(pkg), 'stellar_xdr_json_bg.wasm')));
    loaded = new Set(types());
  }
  return loaded;
}

/** `base64` as stellar-xdr's JSON for `type`; throws what stellar-xdr reports. */
export function xdrToJson(type: string, base64: string): string {
  xdrTypes();
  return decode(type, base64);
}

/** stellar-xdr's JSON for `type` as base64 XDR; throws what stellar-xdr reports. */
export function jsonToXdr(type: string, json: string): string {
  xdrTypes();
  return encode(type, json);
}

/** The outcome of decoding one value as `type` and encoding the JSON back; failures are data, not throws. */
export type RoundTrip =
  | { ok: true; json: string }
  | {
      ok: false;
      stage: 'unknown-type' | 'decode' | 'encode' | 'mismatch';
      error: string;
      json?: string;
      reencoded?: string;
    };

/** Decodes `base64` as the XDR type `type` (e.g. `TransactionEnvelope`), re-encodes the JSON and requires the same base64. */
export function roundTrip(type: string, base64: string): RoundTrip {
  if (!xdrTypes().has(type)) return { ok: false, stage: 'unknown-type', error: `stellar-xdr has no type ${type}` };
  let json: string;
  try {
    json = decode(type, base64);
  } catch (e) {
    return { ok: false, stage: 'decode', error: String(e) };
  }
  let reencoded: string;
  try {
    reencoded = encode(type, json);
  } catch (e) {
    return { ok: false, stage: 'encode', error: String(e), json };
  }
  if (reencoded !== base64)
    return { ok: false, stage: 'mismatch', error: 'the re-encoded XDR differs from the emitted XDR', json, reencoded };
  return { ok: true, json };
}
