import { describe, expect, it } from 'vitest';
import { REDACTED, redact } from '../../../src/crawl/redact.ts';

describe('redact', () => {
  it.each([
    ['a known value anywhere', 'x sk-abcdef y sk-abcdef', ['sk-abcdef'], `x ${REDACTED} y ${REDACTED}`],
    ['the longer of two overlapping secrets whole', 'v=abcd1234', ['abcd', 'abcd1234'], `v=${REDACTED}`],
    ['a bearer token it was never told about', 'got Bearer eyJhbGciOi.x-y_z', [], `got Bearer ${REDACTED}`],
    ['key=value credential shapes', 'password=hunter2 api_key: "zz9" token=abc', [], `password=${REDACTED} api_key: "${REDACTED}" token=${REDACTED}`],
  ])('masks %s', (_what, text, secrets, expected) => {
    expect(redact(text, secrets)).toBe(expected);
  });

  it('masks a value shorter than 4 characters only where it stands alone', () => {
    expect(redact('about a tab, 2021-10-01', ['ab', '1'])).toBe('about a tab, 2021-10-01');
    expect(redact('key=ab got "ab" and 1 more', ['ab', '1'])).toBe(`key=${REDACTED} got "${REDACTED}" and ${REDACTED} more`);
  });
});
