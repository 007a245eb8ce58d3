// Handlers typed from a spec's generated `operations` (src/generated/*.ts): the request body an operation
// takes and the JSON its 200 answers, so the type checker refuses a body field the spec lacks and a
// handler that reads a field the spec does not send. Usage, with `operations` of one spec:
//
//   const register: OperationHandler<operations['registerDid']> = async (req, res) => {
//     req.body;          // RegisterPrepareRequest | SubmitRequest
//     res.json({ txId }); // checked against PrepareResponse | SubmitResponse
//   };
//
// A body serialized ahead (a document served as it is, an answer kept as text) is answered through
// `sendJsonText` (src/platform/json-answer.ts), which holds the body to the same type.
import type { NextFunction, Request, Response } from 'express';

/** The JSON body of a response: its `application/json` content, else its one JSON media type's. */
type JsonOf<T> = T extends { content: infer C }
  ? 'application/json' extends keyof C
    ? C['application/json']
    : C[keyof C]
  : never;

/** The JSON body of an operation's success answer: its 200, or its 201 when it creates. */
export type OkBody<Op> = Op extends { responses: { 200: infer Ok } }
  ? JsonOf<Ok>
  : Op extends { responses: { 201: infer Created } }
    ? JsonOf<Created>
    : never;

/** The JSON request body an operation takes (`undefined` when it takes none). */
export type RequestBodyOf<Op> = Op extends { requestBody: { content: { 'application/json': infer B } } }
  ? B
  : Op extends { requestBody?: { content: { 'application/json': infer B } } }
    ? B | undefined
    : undefined;

/** The path parameters of an operation, as strings (Express decodes them). */
export type PathParamsOf<Op> = Op extends { parameters: { path: infer P } }
  ? [P] extends [never]
    ? Record<string, never>
    : { [K in keyof P]: string }
  : Record<string, never>;

/** The query parameters of an operation, as request validation has checked and coerced them. */
export type QueryOf<Op> = Op extends { parameters: { query?: infer Q } }
  ? [NonNullable<Q>] extends [never]
    ? Record<string, never>
    : NonNullable<Q>
  : Record<string, never>;

/**
 * The header parameters of an operation, by the lower-case names Node gives them (`idempotency-key`), as
 * request validation has checked them; the headers the operation does not declare keep Node's type.
 */
export type HeadersOf<Op> = Op extends { parameters: { header?: infer H } }
  ? [NonNullable<H>] extends [never]
    ? Record<never, never>
    : { [K in keyof NonNullable<H> as Lowercase<K & string>]: NonNullable<H>[K] }
  : Record<never, never>;

/**
 * The request of an operation: typed path parameters, query, header parameters and body (request validation
 * has checked them).
 */
export type OperationRequest<Op> = Request<PathParamsOf<Op>, OkBody<Op>, RequestBodyOf<Op>, QueryOf<Op>> & {
  headers: HeadersOf<Op>;
};

/** The response of an operation: `res.json` takes its success body only. */
export type OperationResponse<Op> = Response<OkBody<Op>>;

/** A handler of one operation (`next` passes on to the 404, or an error to the error envelope). */
export type OperationHandler<Op> = (
  req: OperationRequest<Op>,
  res: OperationResponse<Op>,
  next: NextFunction,
) => Promise<void> | void;
