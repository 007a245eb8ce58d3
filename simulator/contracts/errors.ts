// Contract error enums, numbers exactly as docs/chain-abi.md. The host reports them as `Error(Contract, #N)`.
import { ContractError } from '../host.ts';

/** vc-vault-factory 0.1.0. */
export const FactoryError = {
  NoPendingAdmin: 1,
  InvalidFeeAmount: 2,
  FeeOutOfBounds: 3,
  FeeBelowMin: 4,
  FeeNotConfigured: 5,
  ExpiryInPast: 6,
  NotInitialized: 7,
} as const;

/** vc-vault template 0.4.0 (the gaps are numbers retired before 0.4.0). */
export const VaultError = {
  VaultRevoked: 4,
  VCNotFound: 6,
  VCAlreadyRevoked: 7,
  VaultNotInitialized: 8,
  NotInitialized: 9,
  InvalidVaultContract: 10,
  VCAlreadyExists: 12,
  NoPendingAdmin: 13,
  VaultFull: 15,
  LimitTooLarge: 16,
  BatchTooLarge: 17,
  BatchEmpty: 18,
  InputTooLong: 19,
  IssuerListTooLong: 20,
  FeeOutOfBounds: 23,
  SourceNotAVault: 24,
  IssuerDenied: 25,
  PushOwnerMismatch: 26,
} as const;

/** DID registry 0.2.0. */
export const RegistryError = {
  DidAlreadyExists: 1,
  DidNotFound: 2,
  VersionMismatch: 3,
  DidDeactivated: 4,
  InvalidAuthKeyCount: 5,
  InvalidAssertionKeyCount: 6,
  InvalidKeyAgreementCount: 7,
  InvalidServiceCount: 8,
  DuplicateKey: 9,
  KeyTooLong: 10,
  KeyEmpty: 11,
  ServiceTypeTooLong: 12,
  ServiceIdTooLong: 13,
  ServiceIdInvalidFormat: 14,
  ServiceEndpointInvalid: 15,
  MetadataUriInvalid: 16,
  NoProposedAdmin: 17,
  ServiceTypeEmpty: 18,
  VersionOverflow: 19,
  MetadataInconsistent: 20,
  DuplicateServiceId: 21,
} as const;

/** A thrower bound to one enum: `fail('VCNotFound')` → ContractError(6, 'VCNotFound'). */
export function failWith<E extends Record<string, number>>(errors: E): (name: keyof E & string) => never {
  return (name) => {
    throw new ContractError(errors[name]!, name);
  };
}
