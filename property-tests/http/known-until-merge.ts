// 5xx answers the bad-input properties find on this branch that belong to fixes made in parallel branches
// (issue 12). Each entry tolerates a 5xx for one mutation kind of one service, nothing else: the status, the
// envelope and the size of every other answer are still checked. The lead empties this list once those
// branches are merged; an entry left here after that hides a regression.
import type { ApiName } from './spec.ts';

export interface KnownDefect {
  api: ApiName;
  /** The mutation kind (hostile-mutations.ts / mutations.ts) whose 5xx is tolerated. */
  kind: string;
  /** Issue 12 item whose branch fixes it. */
  item: string;
}

export const KNOWN_UNTIL_MERGE: readonly KnownDefect[] = [
  // A G…/C… address that matches the pattern but fails its checksum reaches the chain code: 500.
  { api: 'vault', kind: 'badChecksumStrKey', item: '4 (StrKey checksums: 400 naming the field)' },
  // `Content-Encoding: gzip|deflate|br` over bytes that do not decompress: 500 on every POST of both services.
  { api: 'vault', kind: 'corruptEncoding', item: '5 (corrupt compressed bodies: 400, unsupported encoding 415)' },
  { api: 'resolver', kind: 'corruptEncoding', item: '5 (corrupt compressed bodies: 400, unsupported encoding 415)' },
];

/** Whether a 5xx of `kind` on `api` is a known defect of another branch. */
export function knownUntilMerge(api: ApiName, kind: string): boolean {
  return KNOWN_UNTIL_MERGE.some((d) => d.api === api && d.kind === kind);
}
