// HEAD on every GET operation of a description (both specs, "info.description"): load balancers and
// uptime probes send HEAD. The request is routed as the GET of its path (route matching, keys, limits,
// validation, the handler), so it gets the GET's status and headers; Node's ServerResponse knows the request
// was HEAD and sends no body. Logs and metrics still see `HEAD`: the method is put back before they read it.
import type { RequestHandler } from 'express';

type Json = Record<string, unknown>;

/** A path template (`/contracts/vault/{owner}`) as an anchored regular expression: a parameter is one non-empty segment. */
export function templateMatcher(template: string): RegExp {
  const source = template
    .split(/(\{[^}/]+\})/)
    .map((part) => (/^\{[^}/]+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

/** The path templates of `paths` with a `get` operation, as anchored regular expressions. */
export function getPathMatchers(paths: Record<string, unknown>): RegExp[] {
  return Object.entries(paths)
    .filter(([, item]) => typeof item === 'object' && item !== null && (item as Json)['get'] !== undefined)
    .map(([template]) => templateMatcher(template));
}

/**
 * HEAD on a path the description declares a GET for → handled as that GET. Mount it before the metrics and
 * the request log (its `close` listener must run before theirs, to put `HEAD` back), after any rewriting of
 * the URL. HEAD on any other path is left alone (answered 404 like every undeclared method).
 */
export function headAsGet(paths: Record<string, unknown>): RequestHandler {
  const matchers = getPathMatchers(paths);
  return (req, res, next) => {
    if (req.method !== 'HEAD') return next();
    const path = req.path;
    if (!matchers.some((re) => re.test(path))) return next();
    req.method = 'GET';
    res.once('close', () => {
      req.method = 'HEAD';
    });
    next();
  };
}
