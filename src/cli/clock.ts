/** The one timestamp toolgate writes: SOURCE_DATE_EPOCH when set (reproducible builds), else now. */
import { ToolgateError } from '../errors.ts';

export function createdAtFromEnv(env: Readonly<Record<string, string | undefined>>, now: () => Date = () => new Date()): string {
  const raw = env.SOURCE_DATE_EPOCH;
  if (raw === undefined || raw === '') return rfc3339(now());
  if (!/^\d{1,12}$/.test(raw)) throw new ToolgateError('USAGE', `SOURCE_DATE_EPOCH must be a non-negative integer number of seconds, got ${JSON.stringify(raw)}`);
  return rfc3339(new Date(Number(raw) * 1000));
}

/** RFC 3339 in UTC with whole seconds, e.g. 2026-07-14T00:00:00Z (independent of the local time zone). */
export function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
