// The specs' own string formats: a pattern such as `^G[A-Z2-7]{55}$` admits `G` + 55×`A`, whose checksum is wrong,
// and the SDK throws on it deep inside a handler (a 500). These check the whole StrKey.
import { StrKey } from '@stellar/stellar-sdk';

const STELLAR_ACCOUNT = 'stellar-account';
const STELLAR_CONTRACT = 'stellar-contract';

/** In a client's words (error messages). */
export const FORMAT_WORDS: Readonly<Record<string, string>> = {
  [STELLAR_ACCOUNT]: 'an account address (G…, 56 characters, StrKey with a valid checksum)',
  [STELLAR_CONTRACT]: 'a contract id (C…, 56 characters, StrKey with a valid checksum)',
};

/** `must match format "…"` in a client's words. */
export function inWords(message: string): string {
  const words = FORMAT_WORDS[/^must match format "([^"]+)"$/.exec(message)?.[1] ?? ''];
  return words ? `is not ${words}` : message;
}

/** Never throws. */
export function isAccountAddress(value: unknown): value is string {
  return typeof value === 'string' && value.length === 56 && StrKey.isValidEd25519PublicKey(value);
}

/** Never throws. */
export function isContractId(value: unknown): value is string {
  return typeof value === 'string' && value.length === 56 && StrKey.isValidContract(value);
}

/** The `formats` option of express-openapi-validator. */
export const ADDRESS_FORMATS = {
  [STELLAR_ACCOUNT]: { type: 'string' as const, validate: (v: string) => isAccountAddress(v) },
  [STELLAR_CONTRACT]: { type: 'string' as const, validate: (v: string) => isContractId(v) },
};
