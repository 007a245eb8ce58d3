// Handlers typed from a spec's generated `operations` (src/generated/*.ts), so the type checker refuses a
// body field the spec lacks: `OperationHandler<operations['registerDid']>`.
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

/** The parameters `in` one place, as request validation has checked and coerced them; `None` when there are none. */
type ParamsOf<Op, In extends string, None> = Op extends { parameters: { [K in In]?: infer P } }
  ? [NonNullable<P>] extends [never]
    ? None
    : NonNullable<P>
  : None;

/** As strings (Express decodes them). */
type PathParams<P> = [P] extends [never] ? Record<string, never> : { [K in keyof P]: string };
export type PathParamsOf<Op> = PathParams<ParamsOf<Op, 'path', never>>;
export type QueryOf<Op> = ParamsOf<Op, 'query', Record<string, never>>;
/** By the lower-case names Node gives them; undeclared headers keep Node's type. */
type LowerCased<H> = { [K in keyof H as Lowercase<K & string>]: H[K] };
export type HeadersOf<Op> = LowerCased<ParamsOf<Op, 'header', Record<never, never>>>;

export type OperationRequest<Op> = Request<PathParamsOf<Op>, OkBody<Op>, RequestBodyOf<Op>, QueryOf<Op>> & {
  headers: HeadersOf<Op>;
};

export type OperationResponse<Op> = Response<OkBody<Op>>;

export type OperationHandler<Op> = (
  req: OperationRequest<Op>,
  res: OperationResponse<Op>,
  next: NextFunction,
) => Promise<void> | void;
