// The specs' own string formats, registered in express-openapi-validator's ajv by both apps. A pattern such
// as `^G[A-Z2-7]{55}$` (kept in the specs for Prism and other tools) admits strings that are no address at
// all: `G` + 55×`A` has a wrong checksum, and the SDK throws on it deep inside a handler (a 500). The
// formats check the whole StrKey: version byte, length, padding bits and CRC16 checksum.
import { StrKey } from '@stellar/stellar-sdk';

/** `format: stellar-account`: an account address, `G…` (ed25519 public key StrKey). */
const STELLAR_ACCOUNT = 'stellar-account';
/** `format: stellar-contract`: a contract id, `C…` (contract StrKey). */
const STELLAR_CONTRACT = 'stellar-contract';

/** What a value of each format is, in a client's words (error messages). */
export const FORMAT_WORDS: Readonly<Record<string, string>> = {
  [STELLAR_ACCOUNT]: 'an account address (G…, 56 characters, StrKey with a valid checksum)',
  [STELLAR_CONTRACT]: 'a contract id (C…, 56 characters, StrKey with a valid checksum)',
};

/** A validator message in a client's words where the specs' own formats are concerned (`must match format "…"`). */
export function inWords(message: string): string {
  const words = FORMAT_WORDS[/^must match format "([^"]+)"$/.exec(message)?.[1] ?? ''];
  return words ? `is not ${words}` : message;
}

/** True when `value` is a valid account address. Never throws. */
export function isAccountAddress(value: unknown): value is string {
  return typeof value === 'string' && value.length === 56 && StrKey.isValidEd25519PublicKey(value);
}

/** True when `value` is a valid contract id. Never throws. */
export function isContractId(value: unknown): value is string {
  return typeof value === 'string' && value.length === 56 && StrKey.isValidContract(value);
}

/** The `formats` option of express-openapi-validator (ajv formats of type string). */
export const ADDRESS_FORMATS = {
  [STELLAR_ACCOUNT]: { type: 'string' as const, validate: (v: string) => isAccountAddress(v) },
  [STELLAR_CONTRACT]: { type: 'string' as const, validate: (v: string) => isContractId(v) },
};
