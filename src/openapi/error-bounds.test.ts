// How much of a request an error repeats: short values as they are, long ones cut with their length.
import { describe, expect, it } from 'vitest';
import { clip, ECHO_MAX } from './error-bounds.ts';

describe('clip', () => {
  it.each([
    { given: 'owner', max: ECHO_MAX, want: 'owner' },
    { given: 'x'.repeat(ECHO_MAX), max: ECHO_MAX, want: 'x'.repeat(ECHO_MAX) },
    { given: 'x'.repeat(ECHO_MAX + 1), max: ECHO_MAX, want: `${'x'.repeat(ECHO_MAX)}… (${ECHO_MAX + 1} characters)` },
    { given: 'y'.repeat(400_000), max: 10, want: `${'y'.repeat(10)}… (400000 characters)` },
  ])('$given.length characters, max $max', ({ given, max, want }) => {
    expect(clip(given, max)).toBe(want);
  });
});
