/**
 * The parts of Go's `time` package that OPA's time.* builtins expose, over bigint nanoseconds:
 * civil-date conversion, zone offsets (IANA names through Intl; "Local" is taken as UTC so that
 * results never depend on the machine), AddDate normalisation and duration strings. Go's
 * reference-layout formatting and parsing are in gotime-layout.ts.
 */

export class TimeError extends Error {}

export const NS_PER_SEC = 1_000_000_000n;
export const SEC_PER_DAY = 86_400n;
export const MIN_NS = -(2n ** 63n);
export const MAX_NS = 2n ** 63n - 1n;

export const LONG_MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
export const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
export const WEEKDAY_NAMES: readonly string[] = LONG_DAYS;

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q;
}
export function floorMod(a: bigint, b: bigint): bigint {
  return a - floorDiv(a, b) * b;
}

/** Days since 1970-01-01 -> proleptic Gregorian civil date. */
export function civilFromDays(z0: bigint): { year: bigint; month: number; day: number } {
  const z = z0 + 719468n;
  const era = floorDiv(z, 146097n);
  const doe = z - era * 146097n;
  const yoe = (doe - doe / 1460n + doe / 36524n - doe / 146096n) / 365n;
  const y = yoe + era * 400n;
  const doy = doe - (365n * yoe + yoe / 4n - yoe / 100n);
  const mp = (5n * doy + 2n) / 153n;
  const d = doy - (153n * mp + 2n) / 5n + 1n;
  const m = mp < 10n ? mp + 3n : mp - 9n;
  return { year: m <= 2n ? y + 1n : y, month: Number(m), day: Number(d) };
}

/** Proleptic Gregorian civil date -> days since 1970-01-01 (month and day may be out of range: Go normalises). */
export function daysFromCivil(year0: bigint, month0: bigint, day0: bigint): bigint {
  // normalise month into 1..12 first
  const m0 = month0 - 1n;
  const year = year0 + floorDiv(m0, 12n);
  const month = floorMod(m0, 12n) + 1n;
  const y = month <= 2n ? year - 1n : year;
  const era = floorDiv(y, 400n);
  const yoe = y - era * 400n;
  const mp = month > 2n ? month - 3n : month + 9n;
  const doy = (153n * mp + 2n) / 5n;
  const doe = yoe * 365n + yoe / 4n - yoe / 100n + doy;
  return era * 146097n + doe - 719468n + (day0 - 1n);
}

export function isLeap(y: bigint): boolean {
  return (y % 4n === 0n && y % 100n !== 0n) || y % 400n === 0n;
}

/** Offset in seconds east of UTC of `zone` at instant `ns`. */
export function zoneOffsetSeconds(zone: string, ns: bigint): number {
  if (zone === '' || zone === 'UTC' || zone === 'Local') return 0;
  let fmt: Intl.DateTimeFormat;
  try {
    fmt = new Intl.DateTimeFormat('en-US', {
      timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric',
      hour: 'numeric', minute: 'numeric', second: 'numeric', era: 'short',
    });
  } catch {
    throw new TimeError(`unknown time zone ${zone}`);
  }
  const ms = Number(floorDiv(ns, 1_000_000n));
  const parts = fmt.formatToParts(new Date(ms));
  const get = (t: string): number => Number(parts.find((p) => p.type === t)?.value ?? '0');
  let year = get('year');
  if (parts.find((p) => p.type === 'era')?.value === 'BC') year = 1 - year;
  const local = daysFromCivil(BigInt(year), BigInt(get('month')), BigInt(get('day'))) * SEC_PER_DAY +
    BigInt(get('hour') * 3600 + get('minute') * 60 + get('second'));
  const utcSec = floorDiv(BigInt(ms), 1000n);
  return Number(local - utcSec);
}

export interface Broken {
  year: bigint;
  month: number; // 1..12
  day: number;
  hour: number;
  minute: number;
  second: number;
  nanos: number;
  weekday: number; // 0 = Sunday
  yday: number; // 1..366
  offset: number; // seconds east of UTC
  zone: string;
}

export function breakDown(ns: bigint, zone: string): Broken {
  const offset = zoneOffsetSeconds(zone, ns);
  const local = ns + BigInt(offset) * NS_PER_SEC;
  const secs = floorDiv(local, NS_PER_SEC);
  const nanos = Number(local - secs * NS_PER_SEC);
  const days = floorDiv(secs, SEC_PER_DAY);
  const sod = Number(secs - days * SEC_PER_DAY);
  const { year, month, day } = civilFromDays(days);
  const weekday = Number(floorMod(days + 4n, 7n));
  const yday = Number(days - daysFromCivil(year, 1n, 1n)) + 1;
  return {
    year, month, day, hour: Math.floor(sod / 3600), minute: Math.floor((sod % 3600) / 60), second: sod % 60,
    nanos, weekday, yday, offset, zone: zoneAbbrev(zone, offset),
  };
}

function zoneAbbrev(zone: string, offset: number): string {
  if (zone === '' || zone === 'UTC' || zone === 'Local') return 'UTC';
  try {
    const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'short' }).formatToParts(new Date(0));
    const name = parts.find((p) => p.type === 'timeZoneName')?.value;
    if (name !== undefined && !name.startsWith('GMT')) return name;
  } catch {
    /* fall through */
  }
  // Go prints a numeric abbreviation such as "+01" when the zone has none.
  const sign = offset < 0 ? '-' : '+';
  const a = Math.abs(offset);
  const h = String(Math.floor(a / 3600)).padStart(2, '0');
  const m = Math.floor((a % 3600) / 60);
  return m === 0 ? `${sign}${h}` : `${sign}${h}${String(m).padStart(2, '0')}`;
}

/** Go's Time.AddDate followed by conversion back to UnixNano (in the zone of the time). */
export function addDate(ns: bigint, zone: string, years: bigint, months: bigint, days: bigint): bigint {
  const t = breakDown(ns, zone);
  const d = daysFromCivil(t.year + years, BigInt(t.month) + months, BigInt(t.day) + days);
  const localSecs = d * SEC_PER_DAY + BigInt(t.hour * 3600 + t.minute * 60 + t.second);
  const offset = zoneOffsetSeconds(zone, (localSecs - BigInt(t.offset)) * NS_PER_SEC);
  return (localSecs - BigInt(offset)) * NS_PER_SEC + BigInt(t.nanos);
}

const UNIT_NS: Record<string, bigint> = {
  ns: 1n, us: 1000n, 'µs': 1000n, 'μs': 1000n, ms: 1_000_000n, s: NS_PER_SEC, m: 60n * NS_PER_SEC, h: 3600n * NS_PER_SEC,
};

/** Go's time.ParseDuration. */
export function parseDuration(s0: string): bigint {
  const bad = (): never => {
    throw new TimeError(`time: invalid duration ${JSON.stringify(s0)}`);
  };
  let s = s0;
  let neg = false;
  if (s[0] === '-' || s[0] === '+') {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') bad();
  let total = 0n;
  while (s !== '') {
    const m = /^([0-9]*)(?:\.([0-9]*))?/.exec(s)!;
    const intPart = m[1] ?? '';
    const fracPart = m[2];
    if (intPart === '' && (fracPart === undefined || fracPart === '')) bad();
    s = s.slice(m[0].length);
    const u = /^[^0-9.]+/.exec(s);
    if (u === null) throw new TimeError(`time: missing unit in duration ${JSON.stringify(s0)}`);
    const unit = UNIT_NS[u[0]];
    if (unit === undefined) throw new TimeError(`time: unknown unit ${JSON.stringify(u[0])} in duration ${JSON.stringify(s0)}`);
    s = s.slice(u[0].length);
    let v = BigInt(intPart === '' ? '0' : intPart) * unit;
    if (fracPart !== undefined && fracPart !== '') {
      // Go: fractional part scaled by unit, truncated
      v += (BigInt(fracPart) * unit) / 10n ** BigInt(fracPart.length);
    }
    total += v;
    if (total > MAX_NS + (neg ? 1n : 0n)) bad();
  }
  return neg ? -total : total;
}
