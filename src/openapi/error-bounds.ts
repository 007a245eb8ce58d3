// How much of a bad request an error answer may repeat (a 469 KB body once answered 7.5 MB,
// one line per failure). Both specs promise error bodies of a few KB: the first failures and a count, and
// the client's own values cut short (vault-api.yaml ErrorBody.message, did-resolver.yaml Error.details).

/** Failures named in a vault API message (vault-api.yaml ErrorBody.message). */
export const VAULT_FAILURES_LISTED = 5;
/** Failures in the resolver's `details.errors` / `details.violations` (did-resolver.yaml Error.details). */
export const RESOLVER_FAILURES_LISTED = 10;
/** The longest piece of the client's input an error repeats. */
export const ECHO_MAX = 100;

/** `text` cut to `max` characters, with an ellipsis and the full length when it was longer. */
export function clip(text: string, max = ECHO_MAX): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}
