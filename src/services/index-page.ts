// `GET /` of each service (vault-api.yaml and did-resolver.yaml `getIndex`): where this service's pages are, and
// the other services of this process with their addresses. JSON by default; a small HTML page with the same
// links when the client prefers `text/html` to `application/json` (a browser opening http://127.0.0.1:3000/).
import type { Request, Response } from 'express';

/** Another service of this process: its name (as in its logs, metrics and /health) and the port it listens on. */
export interface RelatedService {
  service: string;
  port: number;
}

export interface IndexOptions {
  /** This service's name, as in its logs, metrics and /health. */
  service: string;
  /** The spec's `info.title`. */
  title: string;
  /** Whether `/docs` is served here (not on mainnet's vault API). */
  docs: boolean;
  /** The other services of this process, read at each request (they listen after this app is made). */
  related?: () => readonly RelatedService[];
}

export interface ServiceIndex {
  service: string;
  title: string;
  links: { docs?: string; openapi: string; health: string; ready: string; metrics: string };
  services: { service: string; url: string }[];
}

/** The index for this request: the other services at the host the request named, on their own ports. */
export function serviceIndex(req: Request, o: IndexOptions): ServiceIndex {
  const host = hostOf(req);
  return {
    service: o.service,
    title: o.title,
    links: {
      ...(o.docs ? { docs: '/docs' } : {}),
      openapi: '/openapi.json',
      health: '/health',
      ready: '/ready',
      metrics: '/metrics',
    },
    services: (o.related?.() ?? []).map((r) => ({ service: r.service, url: `http://${host}:${r.port}/` })),
  };
}

/** The request's host name without its port (`[::1]` kept bracketed), else the loopback address. */
function hostOf(req: Request): string {
  const name = req.hostname;
  // A Host header is the client's: only a plain name or address goes into a URL.
  return typeof name === 'string' && /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]{1,253})$/.test(name) ? name : '127.0.0.1';
}

/** Whether the client prefers HTML to JSON (`Accept`; JSON when it names neither or both equally). */
export function prefersHtml(req: Request): boolean {
  return req.accepts(['application/json', 'text/html']) === 'text/html';
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The same links as a small HTML page. */
export function indexHtml(index: ServiceIndex): string {
  const link = (href: string, text = href) => `<li><a href="${escapeHtml(href)}">${escapeHtml(text)}</a></li>`;
  const own = Object.values(index.links).map((href) => link(href));
  const others = index.services.map((s) => link(s.url, `${s.service} ${s.url}`));
  const title = escapeHtml(index.title);
  return (
    `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${title} (${escapeHtml(index.service)})</title>` +
    `</head><body><h1>${title}</h1><ul>${own.join('')}</ul>` +
    (others.length ? `<h2>Other services of this process</h2><ul>${others.join('')}</ul>` : '') +
    '</body></html>'
  );
}

/** Answers the index as JSON, or as HTML to a client that prefers it. */
export function sendIndex(req: Request, res: Response, o: IndexOptions, json: (index: ServiceIndex) => void): void {
  const index = serviceIndex(req, o);
  res.vary('Accept');
  if (prefersHtml(req)) res.type('html').end(indexHtml(index));
  else json(index);
}
