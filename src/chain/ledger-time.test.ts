// Ledger close times from the registry's events, asked of the network's chain client (its timeouts, its metrics).
import type { rpc } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { eventLedgerCloseTime } from './ledger-time.ts';

const REGISTRY = 'CD4FWXJVWXKDA6QU36W7SMC7PVVM2F43RTJIXY7G4PSF3A2YH52YRHWZ';

function client(answer: (req: rpc.Api.GetEventsRequest) => Promise<Partial<rpc.Api.GetEventsResponse>>) {
  const asked: rpc.Api.GetEventsRequest[] = [];
  return {
    asked,
    getEvents: async (req: rpc.Api.GetEventsRequest) => {
      asked.push(req);
      return (await answer(req)) as rpc.Api.GetEventsResponse;
    },
  };
}

describe('eventLedgerCloseTime', () => {
  it("asks the client for the registry's events of that one ledger, and remembers the answer", async () => {
    const c = client(async () => ({
      events: [{ ledger: 42, ledgerClosedAt: '2026-11-26T10:00:05Z' } as rpc.Api.EventResponse],
    }));
    const closeTime = eventLedgerCloseTime({ client: c, registryId: REGISTRY });
    expect(await closeTime(42)).toEqual(new Date('2026-11-26T10:00:05Z'));
    expect(await closeTime(42)).toEqual(new Date('2026-11-26T10:00:05Z'));
    expect(c.asked).toEqual([
      { startLedger: 42, endLedger: 43, filters: [{ type: 'contract', contractIds: [REGISTRY] }], limit: 1 },
    ]);
  });

  it.each([
    { name: 'no event in that ledger', answer: async () => ({ events: [] }) },
    {
      name: 'an event of another ledger',
      answer: async () => ({
        events: [{ ledger: 43, ledgerClosedAt: '2026-11-26T10:00:10Z' } as rpc.Api.EventResponse],
      }),
    },
    {
      name: 'a time that is not a date',
      answer: async () => ({ events: [{ ledger: 42, ledgerClosedAt: 'soon' } as rpc.Api.EventResponse] }),
    },
    { name: 'a failing RPC', answer: () => Promise.reject(new Error('chain RPC unavailable')) },
  ])('undefined for $name, never a throw, and not remembered', async ({ answer }) => {
    const c = client(answer);
    const closeTime = eventLedgerCloseTime({ client: c, registryId: REGISTRY });
    expect(await closeTime(42)).toBeUndefined();
    expect(await closeTime(42)).toBeUndefined();
    expect(c.asked).toHaveLength(2);
  });

  it('asks nothing for a sequence that cannot be a ledger', async () => {
    const c = client(async () => ({ events: [] }));
    const closeTime = eventLedgerCloseTime({ client: c, registryId: REGISTRY });
    for (const seq of [0, -1, 1.5, Number.NaN]) expect(await closeTime(seq)).toBeUndefined();
    expect(c.asked).toEqual([]);
  });
});
