// The sliding-window log shared by the memory and Redis limiters: every allowed request's timestamp is
// kept for windowMs; a request is allowed while fewer than `limit` timestamps are inside the window.
// Exact to the millisecond: a timestamp t counts while now - windowMs < t.
import type { HitResult } from './types.ts';

/**
 * The result of a hit, given the window after it.
 * `count` timestamps are in the window (including this one when allowed); `blockerMs` is the timestamp
 * whose expiry frees a slot (the (count - limit)-th oldest when refused, the oldest when allowed).
 */
export function hitResult(
  allowed: boolean,
  limit: number,
  count: number,
  oldestMs: number | undefined,
  blockerMs: number | undefined,
  now: number,
  windowMs: number,
): HitResult {
  const resetMs = oldestMs === undefined ? 0 : Math.max(0, oldestMs + windowMs - now);
  let retryAfterSeconds = 0;
  if (!allowed) {
    const waitMs = blockerMs === undefined ? windowMs : blockerMs + windowMs - now;
    retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
  }
  return { allowed, limit, remaining: Math.max(0, limit - count), retryAfterSeconds, resetMs };
}

export function checkHitInput(limit: number, windowMs: number): void {
  if (!Number.isInteger(limit) || limit < 0) throw new RangeError('limit must be a non-negative integer');
  if (!Number.isInteger(windowMs) || windowMs <= 0) throw new RangeError('windowMs must be a positive integer');
}
