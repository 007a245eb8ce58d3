// The wallet-proof challenge (SEP-10 style; vault-api.yaml GET /auth/challenge, POST /auth/keys): built and
// checked on the service's clock (`now`, injected), so its time bounds are exactly the spec's 5 minutes. The
// SDK's readChallengeTx is not used to check a signed challenge: it reads the wall clock and allows 5 more
// minutes of grace, which let a challenge posted 330 s after issue obtain a key.
//
// A challenge carrying the service's signature was built here (only the service holds that key and it signs
// nothing else), so its structure is checked for clear messages, not for trust.
import { randomBytes } from 'node:crypto';
import {
  Account,
  BASE_FEE,
  Keypair,
  Operation,
  StrKey,
  Transaction,
  TransactionBuilder,
  WebAuth,
} from '@stellar/stellar-sdk';
import type { Clock } from '../../domain.ts';

/** Validity of a challenge (vault-api.yaml GET /auth/challenge: 5 minutes). */
export const CHALLENGE_TIMEOUT_S = 300;

export class ChallengeError extends Error {}

export interface ChallengeOptions {
  server: Keypair;
  passphrase: string;
  /** Home domain and web-auth domain (the first operation is `${domain} auth`). */
  domain: string;
  /** ms */
  now: Clock;
}

/** A challenge for `account`, signed by the server, valid from now for CHALLENGE_TIMEOUT_S. */
export function buildChallenge(o: ChallengeOptions, account: string): string {
  const now = Math.floor(o.now() / 1000);
  const tx = new TransactionBuilder(new Account(o.server.publicKey(), '-1'), {
    fee: BASE_FEE,
    networkPassphrase: o.passphrase,
    timebounds: { minTime: now, maxTime: now + CHALLENGE_TIMEOUT_S },
  })
    .addOperation(
      Operation.manageData({ name: `${o.domain} auth`, value: randomBytes(48).toString('base64'), source: account }),
    )
    .addOperation(Operation.manageData({ name: 'web_auth_domain', value: o.domain, source: o.server.publicKey() }))
    .build();
  tx.sign(o.server);
  return tx.toXDR();
}

export interface ReadChallenge {
  tx: Transaction;
  /** The account the challenge is for. */
  account: string;
}

/** Decodes a signed challenge and checks that this service issued it and that it is within its time bounds. */
export function readChallenge(o: ChallengeOptions, transaction: string): ReadChallenge {
  let tx: Transaction;
  try {
    const decoded = TransactionBuilder.fromXDR(transaction, o.passphrase);
    if (!(decoded instanceof Transaction)) throw new ChallengeError('expected a transaction, not a fee bump');
    tx = decoded;
  } catch (err) {
    if (err instanceof ChallengeError) throw err;
    throw new ChallengeError('not a transaction envelope (base64 XDR)');
  }
  const first = tx.operations[0];
  if (
    tx.source !== o.server.publicKey() ||
    tx.sequence !== '0' ||
    first?.type !== 'manageData' ||
    first.name !== `${o.domain} auth` ||
    !first.source
  ) {
    throw new ChallengeError('not a challenge of this service');
  }
  if (!WebAuth.verifyTxSignedBy(tx, o.server.publicKey())) {
    throw new ChallengeError('not signed by this service on this network (or changed after issue)');
  }
  const bounds = tx.timeBounds;
  const now = Math.floor(o.now() / 1000);
  if (!bounds) throw new ChallengeError('it has no time bounds');
  if (now < Number(bounds.minTime)) throw new ChallengeError('it is not valid yet');
  if (now > Number(bounds.maxTime)) {
    throw new ChallengeError(
      `it expired ${now - Number(bounds.maxTime)} s ago (a challenge is valid for ${CHALLENGE_TIMEOUT_S / 60} minutes); request a new one`,
    );
  }
  if (!StrKey.isValidEd25519PublicKey(first.source))
    throw new ChallengeError('the challenge is not for an account address');
  return { tx, account: first.source };
}

export interface Signers {
  /** At least 1. */
  threshold: number;
  signers: { key: string; weight: number }[];
}

/** Checks the client's signatures: only known signers (besides the server), together at least `threshold`. */
export function checkSigners(o: ChallengeOptions, read: ReadChallenge, s: Signers): void {
  const keys = s.signers.map((x) => x.key).filter((k) => k !== o.server.publicKey());
  const found = WebAuth.gatherTxSigners(read.tx, keys);
  if (found.length === 0) throw new ChallengeError(`not signed by ${read.account} or one of its signers`);
  if (read.tx.signatures.length !== found.length + 1)
    throw new ChallengeError('it carries signatures of keys that are not signers of the account');
  const weight = found.reduce((sum, k) => sum + (s.signers.find((x) => x.key === k)?.weight ?? 0), 0);
  if (weight < s.threshold)
    throw new ChallengeError(`the signatures weigh ${weight}, the account's medium threshold is ${s.threshold}`);
}
