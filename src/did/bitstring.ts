// Bitstring Status List v1.0 §2.1 and §3.2: the list is GZIP-compressed and multibase base64url encoded; index 0 is
// the left-most (most significant) bit of the first byte.
import { gunzipSync } from 'node:zlib';
import { base64urlnopad } from '@scure/base';

/** The bits of an `encodedList`, or why it cannot be read; at most `maxBytes` once decompressed. */
export function decodeStatusList(encoded: unknown, maxBytes: number): { bits: Buffer } | { error: string } {
  if (typeof encoded !== 'string' || !encoded.startsWith('u'))
    return { error: 'encodedList must be multibase base64url (u…) of the GZIP-compressed bitstring' };
  try {
    return { bits: gunzipSync(base64urlnopad.decode(encoded.slice(1)), { maxOutputLength: maxBytes }) };
  } catch (e) {
    return { error: `encodedList cannot be decoded: ${(e as Error).message}` };
  }
}

/** Whether bit `index` is set, or undefined when the list is shorter. */
export function statusBit(bits: Buffer, index: number): boolean | undefined {
  if (index >= bits.length * 8) return undefined;
  return ((bits[index >> 3]! >> (7 - (index & 7))) & 1) === 1;
}
