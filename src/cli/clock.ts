/** The one timestamp toolgate writes: SOURCE_DATE_EPOCH when set (reproducible builds), else now. */
import { ToolgateError } from '../errors.ts';

/** 9999-12-31T23:59:59Z in seconds since the epoch. */
export const MAX_RFC3339_EPOCH = 253402300799;

/** True when the created_at comes from SOURCE_DATE_EPOCH (and must not be replaced by an earlier artifact's). */
export function createdAtPinned(env: Readonly<Record<string, string | undefined>>): boolean {
  return env.SOURCE_DATE_EPOCH !== undefined && env.SOURCE_DATE_EPOCH !== '';
}

export function createdAtFromEnv(env: Readonly<Record<string, string | undefined>>, now: () => Date = () => new Date()): string {
  const raw = env.SOURCE_DATE_EPOCH;
  if (raw === undefined || raw === '') return rfc3339(now());
  if (!/^\d{1,12}$/.test(raw)) throw new ToolgateError('USAGE', `SOURCE_DATE_EPOCH must be a non-negative integer number of seconds, got ${JSON.stringify(raw)}`);
  // RFC 3339 writes a four-digit year: 9999-12-31T23:59:59Z is the last second it can name.
  if (Number(raw) > MAX_RFC3339_EPOCH) throw new ToolgateError('USAGE', `SOURCE_DATE_EPOCH ${raw} is past 9999-12-31T23:59:59Z (${MAX_RFC3339_EPOCH}), the last time RFC 3339 can write`);
  return rfc3339(new Date(Number(raw) * 1000));
}

/**
 * The wall clock in nanoseconds since the epoch: what OPA's time.now_ns and token expiry read. The
 * engine's default (rego/limits.ts) is the same line; commands that never run Rego load this one.
 */
export function wallClockNs(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}

/** RFC 3339 in UTC with whole seconds, e.g. 2026-07-14T00:00:00Z (independent of the local time zone). */
export function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
