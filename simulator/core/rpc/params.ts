// Reading a method's params as stellar-rpc does: an object by name, required strings, a transaction envelope.
import { xdr } from '@stellar/stellar-sdk';
import type { Params } from './context.ts';
import { INVALID_PARAMS, RpcError } from './error.ts';

/** The params object (absent params are an empty one; by-position arrays are refused). */
export function paramsObject(params: unknown): Params {
  if (params === undefined || params === null) return {};
  if (typeof params !== 'object' || Array.isArray(params))
    throw new RpcError(INVALID_PARAMS, 'params must be an object');
  return params as Params;
}

/** A required non-empty string parameter. */
export function requiredString(p: Params, name: string): string {
  const v = p[name];
  if (typeof v !== 'string' || v === '') throw new RpcError(INVALID_PARAMS, `missing or invalid parameter: ${name}`);
  return v;
}

/** A TransactionEnvelope from its bytes, or from base64 text the SDK decodes; -32602 `invalid_xdr` when it does not
 *  decode. */
export function envelopeOf(input: Uint8Array | string): xdr.TransactionEnvelope {
  try {
    return typeof input === 'string'
      ? xdr.TransactionEnvelope.fromXdr(input, 'base64')
      : xdr.TransactionEnvelope.fromXdr(input);
  } catch (e) {
    // @stellar/stellar-sdk 17 compiles the XDR without CAP-84 (SC_ADDRESS_TYPE_MUXED_CONTRACT = 5), so neither the
    // simulator nor the service can decode a muxed contract address: named, so a client knows what was refused.
    if (
      /(ScAddress|address|contract|contractAddress)\.type: unknown enum value 5$/i.test(String((e as Error).message))
    ) {
      throw new RpcError(
        INVALID_PARAMS,
        'invalid_xdr: SC_ADDRESS_TYPE_MUXED_CONTRACT (CAP-84) addresses are not supported by the simulator',
      );
    }
    throw new RpcError(INVALID_PARAMS, 'invalid_xdr');
  }
}
