// The http.Server of both apps. A request head Node cannot parse reaches no app, and Node answers a bare status
// line; here an answer Node would send (400, 413, 431) carries the app's error envelope, as both specs promise. A
// 408 stays a bare status line and a reset connection is closed.
import http from 'node:http';
import type { Duplex } from 'node:stream';

/** The error body of an app, for a request head Node cannot parse. */
export type HeadEnvelope = (code: string, message: string) => Record<string, unknown>;

const ENVELOPE = Symbol.for('credential-vault.errorEnvelope');

/** So a server made by `createHttpServer` answers client errors in the app's envelope. */
export function setErrorEnvelope(app: object, envelope: HeadEnvelope): void {
  (app as Record<symbol, HeadEnvelope>)[ENVELOPE] = envelope;
}

/** An envelope (`code`), Node's bare status line, or nothing (cut). */
export function clientErrorAnswer(err: NodeJS.ErrnoException) {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        code: 'headers_too_large',
        message: `the request line and headers exceed ${http.maxHeaderSize} bytes; send a shorter URL or fewer or shorter headers`,
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return {
        status: 413,
        code: 'payload_too_large',
        message: 'the chunk extensions of the request body are too large',
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      // server.headersTimeout: no request to speak of, and neither spec has a code for it.
      return { status: 408 };
    case 'ECONNRESET':
      return undefined; // the client went away
    default:
      return { status: 400, code: 'invalid_request', message: 'the request is not valid HTTP/1.1 and cannot be read' };
  }
}

/** As Node's default would (not while an earlier answer on this connection is `answering`), then closes. */
export function answerClientError(
  envelope: HeadEnvelope,
  err: NodeJS.ErrnoException,
  socket: Duplex,
  answering = false,
): void {
  const answer = clientErrorAnswer(err);
  if (!answer || !socket.writable || answering) return void socket.destroy();
  const body = answer.code === undefined ? '' : JSON.stringify(envelope(answer.code, answer.message));
  const head = [`HTTP/1.1 ${answer.status} ${http.STATUS_CODES[answer.status]}`];
  const json = 'Content-Type: application/json; charset=utf-8';
  if (body) head.push(json, `Content-Length: ${Buffer.byteLength(body)}`, 'Cache-Control: no-store');
  // The server allows half-open sockets.
  socket.end(`${[...head, 'Connection: close'].join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
}

/** `http.createServer(handler)`, answering client errors in the envelope `setErrorEnvelope` gave `handler`. */
export function createHttpServer(handler: http.RequestListener): http.Server {
  const server = http.createServer(handler);
  const envelope = (handler as unknown as Record<symbol, HeadEnvelope | undefined>)[ENVELOPE];
  if (envelope) {
    const answering = trackAnswers(server);
    server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) =>
      answerClientError(envelope, err, socket, answering(socket)),
    );
  }
  return server;
}

/** Whether an answer has started on a connection and is not finished yet (public events only). */
function trackAnswers(server: http.Server): (socket: Duplex) => boolean {
  const open = new WeakMap<Duplex, Set<http.ServerResponse>>();
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const set = open.get(req.socket) ?? new Set();
    if (set.size === 0) open.set(req.socket, set);
    res.once('close', () => set.delete(res));
    set.add(res);
  });
  return (socket) => [...(open.get(socket) ?? [])].some((res) => res.headersSent && !res.writableFinished);
}
