// The http.Server of both apps (src/services.ts and every test harness create it here). Node parses the
// request head before any Express code runs; a head it cannot parse reaches no app, and Node's default
// answer is a bare status line with no body (`431` for a head over --max-http-header-size, 16 KiB by
// default; `400` for anything else). Here those answers carry the app's error envelope instead
// (vault-api.yaml `{error, message}`, did-resolver.yaml `{code, message}`): 431 `headers_too_large`,
// 413 `payload_too_large` for oversized chunk extensions, and 400 `invalid_request` for other parse
// failures; then the connection is closed. A head that never completes (408, server.headersTimeout) keeps
// Node's bare answer, and a reset connection is only closed.
import http from 'node:http';
import type { Duplex } from 'node:stream';

/** The error body of an app, in its own envelope. */
export type ErrorEnvelope = (code: string, message: string) => Record<string, unknown>;

const ENVELOPE = Symbol.for('credential-vault.errorEnvelope');

/** Declares the error envelope of an app, so a server made by `createHttpServer` answers client errors in it. */
export function setErrorEnvelope(app: object, envelope: ErrorEnvelope): void {
  (app as Record<symbol, ErrorEnvelope>)[ENVELOPE] = envelope;
}

/** What a client error is answered with: an envelope (`code`), Node's bare status line, or nothing (cut). */
export type ClientErrorAnswer =
  | { status: number; code: string; message: string }
  | { status: number; code?: undefined }
  | undefined;

/** The answer to a request Node could not read. */
export function clientErrorAnswer(err: NodeJS.ErrnoException): ClientErrorAnswer {
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
      // No complete request head in time (server.headersTimeout): Node's bare 408, there is no request to
      // speak of and neither spec has a code for it.
      return { status: 408 };
    case 'ECONNRESET':
      return undefined; // the client went away
    default:
      return { status: 400, code: 'invalid_request', message: 'the request is not valid HTTP/1.1 and cannot be read' };
  }
}

/**
 * Answers a client error on the socket, as Node's default would (only while no answer of an earlier request
 * on this connection has started: `answering`), but with the envelope as a JSON body; then closes the connection.
 */
export function answerClientError(
  envelope: ErrorEnvelope,
  err: NodeJS.ErrnoException,
  socket: Duplex,
  answering = false,
): void {
  const answer = clientErrorAnswer(err);
  if (!answer || !socket.writable || answering) {
    socket.destroy();
    return;
  }
  const status = `HTTP/1.1 ${answer.status} ${http.STATUS_CODES[answer.status]}`;
  let text: string;
  if (answer.code === undefined) {
    text = `${status}\r\nConnection: close\r\n\r\n`;
  } else {
    const body = JSON.stringify(envelope(answer.code, answer.message));
    const head = [
      status,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Cache-Control: no-store',
      'Connection: close',
    ].join('\r\n');
    text = `${head}\r\n\r\n${body}`;
  }
  // end() flushes the answer; the connection is then closed for good (the server allows half-open sockets).
  socket.end(text, () => socket.destroy());
}

/**
 * `http.createServer(handler)`, answering client errors in the handler's envelope when it declares one
 * (`setErrorEnvelope`; both apps do), else as Node does.
 */
export function createHttpServer(handler: http.RequestListener): http.Server {
  const server = http.createServer(handler);
  const envelope = (handler as unknown as Record<symbol, ErrorEnvelope | undefined>)[ENVELOPE];
  if (envelope) {
    const answering = trackAnswers(server);
    server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) =>
      answerClientError(envelope, err, socket, answering(socket)),
    );
  }
  return server;
}

/**
 * Whether an answer has started on a connection and is not finished yet: the responses of each socket are
 * followed from the server's 'request' event until their 'close' (public events only; a response that has
 * finished no longer counts, as Node stops counting it once it has been written out).
 */
function trackAnswers(server: http.Server): (socket: Duplex) => boolean {
  const open = new WeakMap<Duplex, Set<http.ServerResponse>>();
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const socket = req.socket;
    let responses = open.get(socket);
    if (!responses) open.set(socket, (responses = new Set()));
    const set = responses;
    set.add(res);
    res.once('close', () => set.delete(res));
  });
  return (socket) => {
    const responses = open.get(socket);
    if (responses) for (const res of responses) if (res.headersSent && !res.writableFinished) return true;
    return false;
  };
}
