// URLs as the services may show them (GET /config, log lines, error answers, banners): never with the userinfo or
// the query, where an operator's password or an RPC provider's API key lives (docs/operations.md "Settings").

/** `url` without userinfo, query and fragment. Text that is not a URL is not shown at all. */
export function publicUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return '(not a URL)';
  }
  u.username = '';
  u.password = '';
  u.search = '';
  u.hash = '';
  return u.toString();
}

// scheme://[userinfo@]host… up to white space, quotes or brackets (a URL inside a message).
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>()[\]{}]+/gi;

/** `text` with every URL in it reduced as publicUrl reduces one (for messages that quote a library's words). */
export function redactUrls(text: string): string {
  return text.replace(URL_IN_TEXT, (m) => m.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1').replace(/[?#].*$/, ''));
}
