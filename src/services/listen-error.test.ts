// A failed listen in words a person can act on: every cause names the service, the address and the setting to change.
import { describe, expect, it } from 'vitest';
import { listenFailure } from './listen-error.ts';

const target = {
  service: 'the DID resolver',
  host: 'nonexistent.invalid',
  port: 3001,
  setting: 'CV_RESOLVER_PORT (--resolver-port)',
};
const noInterface = /no interface of this machine has the address nonexistent\.invalid; set CV_HOST \(--host\)/;
const failure = (code: string, message = `listen ${code}`) => Object.assign(new Error(message), { code });

describe('listenFailure', () => {
  it.each([
    { code: 'EADDRINUSE', want: /another process uses that port; stop it, or set CV_RESOLVER_PORT \(--resolver-port/ },
    { code: 'EACCES', want: /not allowed to bind that port .* set CV_RESOLVER_PORT \(--resolver-port\) to a/ },
    { code: 'EADDRNOTAVAIL', want: noInterface },
    { code: 'ENOTFOUND', want: noInterface },
    {
      code: 'EAI_AGAIN',
      want: /the host name nonexistent\.invalid could not be resolved \(EAI_AGAIN\); set CV_HOST \(--host\) to one of/,
    },
    { code: 'EAI_FAIL', want: /the host name nonexistent\.invalid could not be resolved \(EAI_FAIL\)/ },
  ])('$code', ({ code, want }) => {
    const message = listenFailure(failure(code), target).message;
    expect(message).toMatch(/^the DID resolver cannot listen on nonexistent\.invalid:3001: /);
    expect(message).toMatch(want);
  });

  it('a cause it has no words for still names the service and the address', () => {
    expect(listenFailure(failure('EMFILE', 'too many open files'), target).message).toBe(
      'the DID resolver cannot listen on nonexistent.invalid:3001: too many open files',
    );
  });

  it('an IPv6 address is bracketed; the simulator names its own host flag', () => {
    const t = { ...target, host: '::2', hostSetting: '--host' };
    expect(listenFailure(failure('EADDRNOTAVAIL'), t).message).toMatch(
      /^the DID resolver cannot listen on \[::2\]:3001: .*set --host /,
    );
  });
});
