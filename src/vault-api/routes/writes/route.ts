// The shape every write route of the vault API has: its operation's prepare body, and the checks at submit.
import type { operations as O } from '../../../generated/vault-api.ts';
import type { WriteRoute } from '../contract-common.ts';

/** The write route of operation `K` (its prepare body is the operation's: src/platform/write.ts PrepareBodyOf). */
export type WriteRouteOf<K extends keyof O> = WriteRoute<O[K]>;

/** `{userSalt}` when one is given. */
export const salt = (userSalt: string | undefined): { userSalt?: string } =>
  userSalt !== undefined ? { userSalt } : {};
