// How much of a bad request an error answer may repeat (a 469 KB body once answered 7.5 MB): both specs promise
// error bodies of a few KB (vault-api.yaml ErrorBody.message, did-resolver.yaml Error.details).

export const VAULT_FAILURES_LISTED = 5;
export const RESOLVER_FAILURES_LISTED = 10;
/** The longest piece of the client's input an error repeats. */
export const ECHO_MAX = 100;

export function clip(text: string, max = ECHO_MAX): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}
