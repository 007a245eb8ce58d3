// The start's lifecycle pieces alone: close order, listen's URL, and the throttled log line.
import { afterEach, describe, expect, it, vi } from 'vitest';
import express from 'express';
import { createClosers, listen, throttled } from './lifecycle.ts';

afterEach(() => vi.useRealTimers());

describe('createClosers', () => {
  it('closes the servers together first, then the rest in reverse order, once, past failures', async () => {
    const order: string[] = [];
    const c = createClosers();
    let releaseHttp!: () => void;
    c.push(async () => void order.push('stores'));
    c.pushHttp(() => new Promise<void>((r) => (releaseHttp = () => (order.push('http-a'), r()))));
    c.pushHttp(async () => {
      order.push('http-b');
      throw new Error('already closed');
    });
    c.push(async () => void order.push('simulator-after-stores'));
    const closing = c.close();
    await vi.waitFor(() => expect(order).toEqual(['http-b']), { timeout: 20_000 });
    releaseHttp();
    await closing;
    expect(order).toEqual(['http-b', 'http-a', 'simulator-after-stores', 'stores']);
    await c.close();
    expect(order).toHaveLength(4);
  });
});

describe('listen', () => {
  it.each([
    ['127.0.0.1', /^http:\/\/127\.0\.0\.1:\d+$/],
    ['::1', /^http:\/\/\[::1\]:\d+$/],
  ])('on %s answers its URL and registers the server', async (host, want) => {
    const closers = createClosers();
    const url = await listen(express(), host, 0, (server) =>
      closers.pushHttp(() => new Promise((r) => server.close(() => r()))),
    );
    expect(url).toMatch(want);
    await closers.close();
  });

  it('rejects when the port is taken', async () => {
    const closers = createClosers();
    const url = await listen(express(), '127.0.0.1', 0, (server) =>
      closers.pushHttp(() => new Promise((r) => server.close(() => r()))),
    );
    await expect(listen(express(), '127.0.0.1', Number(new URL(url).port), () => undefined)).rejects.toMatchObject({
      code: 'EADDRINUSE',
    });
    await closers.close();
  });
});

describe('throttled', () => {
  it('passes one call per interval and counts the ones it skipped', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const seen: [number, string][] = [];
    const log = throttled((suppressed, err) => seen.push([suppressed, err.message]), 10_000);
    log(new Error('a'));
    log(new Error('b'));
    vi.advanceTimersByTime(9_999);
    log(new Error('c'));
    vi.advanceTimersByTime(1);
    log(new Error('d'));
    expect(seen).toEqual([
      [0, 'a'],
      [2, 'd'],
    ]);
  });
});
