/**
 * Go's reference-layout times (`2006-01-02T15:04:05Z07:00` and the rest): a layout read into its
 * chunks, a time formatted by one, and a text parsed by one into UnixNano, as Go's time.Format and
 * time.Parse do.
 */
import { breakDown, civilFromDays, daysFromCivil, floorMod, isLeap, LONG_DAYS, LONG_MONTHS, NS_PER_SEC, SEC_PER_DAY, TimeError } from './gotime.ts';

// ---- layout chunks -------------------------------------------------------------------------

type Std =
  | { k: 'lit'; s: string }
  | { k: 'longMonth' | 'month' | 'numMonth' | 'zeroMonth' | 'longWeekDay' | 'weekDay' | 'day' | 'underDay' | 'zeroDay'
      | 'underYearDay' | 'zeroYearDay' | 'hour' | 'hour12' | 'zeroHour12' | 'minute' | 'zeroMinute' | 'second'
      | 'zeroSecond' | 'longYear' | 'year' | 'PM' | 'pm' | 'tz' | 'ISO8601TZ' | 'ISO8601SecondsTZ' | 'ISO8601ShortTZ'
      | 'ISO8601ColonTZ' | 'ISO8601ColonSecondsTZ' | 'numTZ' | 'numSecondsTz' | 'numShortTZ' | 'numColonTZ'
      | 'numColonSecondsTZ' }
  | { k: 'frac0' | 'frac9'; n: number; sep: string };

const layoutCache = new Map<string, Std[]>();

function isDigitAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return c >= 48 && c <= 57;
}

export function parseLayout(layout: string): Std[] {
  const hit = layoutCache.get(layout);
  if (hit !== undefined) return hit;
  const out: Std[] = [];
  let lit = '';
  const push = (s: Std, len: number): number => {
    if (lit !== '') out.push({ k: 'lit', s: lit });
    lit = '';
    out.push(s);
    return len;
  };
  let i = 0;
  while (i < layout.length) {
    const rest = layout.slice(i);
    const c = layout[i]!;
    let used = 0;
    switch (c) {
      case 'J':
        if (rest.startsWith('January')) used = push({ k: 'longMonth' }, 7);
        else if (rest.startsWith('Jan')) used = push({ k: 'month' }, 3);
        break;
      case 'M':
        if (rest.startsWith('Monday')) used = push({ k: 'longWeekDay' }, 6);
        else if (rest.startsWith('Mon')) used = push({ k: 'weekDay' }, 3);
        else if (rest.startsWith('MST')) used = push({ k: 'tz' }, 3);
        break;
      case '0':
        if (rest.startsWith('002')) used = push({ k: 'zeroYearDay' }, 3);
        else if (/^0[1-6]/.test(rest)) {
          const kinds = ['zeroMonth', 'zeroDay', 'zeroHour12', 'zeroMinute', 'zeroSecond', 'year'] as const;
          used = push({ k: kinds[Number(rest[1]) - 1]! }, 2);
        }
        break;
      case '1':
        if (rest.startsWith('15')) used = push({ k: 'hour' }, 2);
        else used = push({ k: 'numMonth' }, 1);
        break;
      case '2':
        if (rest.startsWith('2006')) used = push({ k: 'longYear' }, 4);
        else used = push({ k: 'day' }, 1);
        break;
      case '_':
        if (rest.startsWith('_2')) {
          if (rest.startsWith('_2006')) {
            lit += '_';
            used = 1;
          } else used = push({ k: 'underDay' }, 2);
        } else if (rest.startsWith('__2')) used = push({ k: 'underYearDay' }, 3);
        break;
      case '3':
        used = push({ k: 'hour12' }, 1);
        break;
      case '4':
        used = push({ k: 'minute' }, 1);
        break;
      case '5':
        used = push({ k: 'second' }, 1);
        break;
      case 'P':
        if (rest.startsWith('PM')) used = push({ k: 'PM' }, 2);
        break;
      case 'p':
        if (rest.startsWith('pm')) used = push({ k: 'pm' }, 2);
        break;
      case '-':
        if (rest.startsWith('-070000')) used = push({ k: 'numSecondsTz' }, 7);
        else if (rest.startsWith('-07:00:00')) used = push({ k: 'numColonSecondsTZ' }, 9);
        else if (rest.startsWith('-0700')) used = push({ k: 'numTZ' }, 5);
        else if (rest.startsWith('-07:00')) used = push({ k: 'numColonTZ' }, 6);
        else if (rest.startsWith('-07')) used = push({ k: 'numShortTZ' }, 3);
        break;
      case 'Z':
        if (rest.startsWith('Z070000')) used = push({ k: 'ISO8601SecondsTZ' }, 7);
        else if (rest.startsWith('Z07:00:00')) used = push({ k: 'ISO8601ColonSecondsTZ' }, 9);
        else if (rest.startsWith('Z0700')) used = push({ k: 'ISO8601TZ' }, 5);
        else if (rest.startsWith('Z07:00')) used = push({ k: 'ISO8601ColonTZ' }, 6);
        else if (rest.startsWith('Z07')) used = push({ k: 'ISO8601ShortTZ' }, 3);
        break;
      case '.':
      case ',': {
        const ch = layout[i + 1];
        if (ch === '0' || ch === '9') {
          let j = i + 1;
          while (j < layout.length && layout[j] === ch) j++;
          if (!isDigitAt(layout, j)) used = push({ k: ch === '0' ? 'frac0' : 'frac9', n: j - i - 1, sep: c }, j - i);
        }
        break;
      }
      default:
        break;
    }
    if (used === 0) {
      lit += c;
      i += 1;
    } else i += used;
  }
  if (lit !== '') out.push({ k: 'lit', s: lit });
  layoutCache.set(layout, out);
  return out;
}

function pad(n: number | bigint, w: number): string {
  const neg = typeof n === 'bigint' ? n < 0n : n < 0;
  const s = (neg ? -n : n).toString().padStart(w, '0');
  return neg ? '-' + s : s;
}

function fmtTz(offset: number, iso: boolean, colon: boolean, secs: boolean, short: boolean): string {
  if (iso && offset === 0) return 'Z';
  const sign = offset < 0 ? '-' : '+';
  const a = Math.abs(offset);
  const h = pad(Math.floor(a / 3600), 2);
  const m = pad(Math.floor((a % 3600) / 60), 2);
  const s = pad(a % 60, 2);
  if (short) return `${sign}${h}`;
  let out = `${sign}${h}${colon ? ':' : ''}${m}`;
  if (secs) out += `${colon ? ':' : ''}${s}`;
  return out;
}

/** Go's Time.Format with a reference layout. */
export function formatTime(ns: bigint, zone: string, layout: string): string {
  const t = breakDown(ns, zone);
  let out = '';
  for (const c of parseLayout(layout)) {
    switch (c.k) {
      case 'lit': out += c.s; break;
      case 'longMonth': out += LONG_MONTHS[t.month - 1]; break;
      case 'month': out += LONG_MONTHS[t.month - 1]!.slice(0, 3); break;
      case 'numMonth': out += String(t.month); break;
      case 'zeroMonth': out += pad(t.month, 2); break;
      case 'longWeekDay': out += LONG_DAYS[t.weekday]; break;
      case 'weekDay': out += LONG_DAYS[t.weekday]!.slice(0, 3); break;
      case 'day': out += String(t.day); break;
      case 'underDay': out += String(t.day).padStart(2, ' '); break;
      case 'zeroDay': out += pad(t.day, 2); break;
      case 'underYearDay': out += String(t.yday).padStart(3, ' '); break;
      case 'zeroYearDay': out += pad(t.yday, 3); break;
      case 'hour': out += pad(t.hour, 2); break;
      case 'hour12': out += String(t.hour % 12 === 0 ? 12 : t.hour % 12); break;
      case 'zeroHour12': out += pad(t.hour % 12 === 0 ? 12 : t.hour % 12, 2); break;
      case 'minute': out += String(t.minute); break;
      case 'zeroMinute': out += pad(t.minute, 2); break;
      case 'second': out += String(t.second); break;
      case 'zeroSecond': out += pad(t.second, 2); break;
      case 'longYear': out += pad(t.year, 4); break;
      case 'year': out += pad(floorMod(t.year, 100n), 2); break;
      case 'PM': out += t.hour >= 12 ? 'PM' : 'AM'; break;
      case 'pm': out += t.hour >= 12 ? 'pm' : 'am'; break;
      case 'tz': out += t.zone; break;
      case 'ISO8601TZ': out += fmtTz(t.offset, true, false, false, false); break;
      case 'ISO8601SecondsTZ': out += fmtTz(t.offset, true, false, true, false); break;
      case 'ISO8601ShortTZ': out += fmtTz(t.offset, true, false, false, true); break;
      case 'ISO8601ColonTZ': out += fmtTz(t.offset, true, true, false, false); break;
      case 'ISO8601ColonSecondsTZ': out += fmtTz(t.offset, true, true, true, false); break;
      case 'numTZ': out += fmtTz(t.offset, false, false, false, false); break;
      case 'numSecondsTz': out += fmtTz(t.offset, false, false, true, false); break;
      case 'numShortTZ': out += fmtTz(t.offset, false, false, false, true); break;
      case 'numColonTZ': out += fmtTz(t.offset, false, true, false, false); break;
      case 'numColonSecondsTZ': out += fmtTz(t.offset, false, true, true, false); break;
      case 'frac0': {
        out += c.sep + pad(t.nanos, 9).slice(0, c.n);
        break;
      }
      case 'frac9': {
        const digits = pad(t.nanos, 9).slice(0, c.n).replace(/0+$/, '');
        if (digits !== '') out += c.sep + digits;
        break;
      }
    }
  }
  return out;
}

export const RFC3339 = '2006-01-02T15:04:05Z07:00';
export const RFC3339_NANO = '2006-01-02T15:04:05.999999999Z07:00';

/** Go's time.Parse (zone-less values are UTC). Returns nanoseconds since the epoch. */
export function parseTime(layout: string, value: string): bigint {
  const fail = (why = ''): never => {
    throw new TimeError(`parsing time ${JSON.stringify(value)} as ${JSON.stringify(layout)}: cannot parse${why}`);
  };
  let v = value;
  let year = 1n;
  let month = 1;
  let day = 1;
  let yday = -1;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let nanos = 0;
  let pmSet = false;
  let amSet = false;
  let offset: number | undefined;
  let zoneName: string | undefined;
  const num = (min: number, max: number, fixed: boolean): number => {
    let j = 0;
    while (j < v.length && j < max && isDigitAt(v, j)) j++;
    if (j < min || (fixed && j !== max)) fail();
    const n = Number(v.slice(0, j));
    v = v.slice(j);
    return n;
  };
  const names = (list: readonly string[], len?: number): number => {
    for (let k = 0; k < list.length; k++) {
      const name = len === undefined ? list[k]! : list[k]!.slice(0, len);
      if (v.slice(0, name.length).toLowerCase() === name.toLowerCase()) {
        v = v.slice(name.length);
        return k;
      }
    }
    return fail();
  };
  const tz = (colon: boolean, secs: boolean, short: boolean, iso: boolean): void => {
    if (iso && v[0] === 'Z') {
      v = v.slice(1);
      offset = 0;
      return;
    }
    const sign = v[0];
    if (sign !== '+' && sign !== '-') fail();
    v = v.slice(1);
    const h = num(2, 2, true);
    let m = 0;
    let s = 0;
    if (!short) {
      if (colon) { if (v[0] !== ':') fail(); v = v.slice(1); }
      m = num(2, 2, true);
      if (secs) {
        if (colon) { if (v[0] !== ':') fail(); v = v.slice(1); }
        s = num(2, 2, true);
      }
    }
    const off = h * 3600 + m * 60 + s;
    offset = sign === '-' ? -off : off;
  };
  const chunks = parseLayout(layout);
  for (let ci = 0; ci < chunks.length; ci++) {
    const c = chunks[ci]!;
    switch (c.k) {
      case 'lit': {
        // Go skips leading spaces in both when the literal starts with a space.
        if (!v.startsWith(c.s)) fail();
        v = v.slice(c.s.length);
        break;
      }
      case 'longMonth': month = names(LONG_MONTHS) + 1; break;
      case 'month': month = names(LONG_MONTHS, 3) + 1; break;
      case 'numMonth': case 'zeroMonth': month = num(c.k === 'zeroMonth' ? 2 : 1, 2, c.k === 'zeroMonth'); if (month < 1 || month > 12) fail(': month out of range'); break;
      case 'longWeekDay': names(LONG_DAYS); break;
      case 'weekDay': names(LONG_DAYS, 3); break;
      case 'day': case 'underDay': case 'zeroDay':
        if (c.k === 'underDay' && v[0] === ' ') v = v.slice(1);
        day = num(c.k === 'zeroDay' ? 2 : 1, 2, c.k === 'zeroDay');
        break;
      case 'underYearDay': case 'zeroYearDay':
        while (c.k === 'underYearDay' && v[0] === ' ') v = v.slice(1);
        yday = num(c.k === 'zeroYearDay' ? 3 : 1, 3, c.k === 'zeroYearDay');
        break;
      case 'hour': hour = num(2, 2, false); if (hour > 23) fail(': hour out of range'); break;
      case 'hour12': case 'zeroHour12': hour = num(c.k === 'zeroHour12' ? 2 : 1, 2, c.k === 'zeroHour12'); if (hour > 12) fail(': hour out of range'); break;
      case 'minute': case 'zeroMinute': minute = num(c.k === 'zeroMinute' ? 2 : 1, 2, c.k === 'zeroMinute'); if (minute > 59) fail(': minute out of range'); break;
      case 'second': case 'zeroSecond': {
        second = num(c.k === 'zeroSecond' ? 2 : 1, 2, c.k === 'zeroSecond');
        if (second > 59) fail(': second out of range');
        // Go accepts a fractional second even when the layout has none, unless the next chunk is one.
        const next = chunks[ci + 1];
        if ((v[0] === '.' || v[0] === ',') && isDigitAt(v, 1) && !(next !== undefined && (next.k === 'frac0' || next.k === 'frac9'))) {
          let j = 1;
          while (isDigitAt(v, j)) j++;
          nanos = Number((v.slice(1, j) + '000000000').slice(0, 9));
          v = v.slice(j);
        }
        break;
      }
      case 'longYear': {
        const neg = v[0] === '-';
        if (neg) v = v.slice(1);
        const y = num(4, 4, true);
        year = BigInt(neg ? -y : y);
        break;
      }
      case 'year': {
        const y = num(2, 2, true);
        year = BigInt(y >= 69 ? 1900 + y : 2000 + y);
        break;
      }
      case 'PM': case 'pm': {
        const s = v.slice(0, 2).toUpperCase();
        if (s === 'PM') pmSet = true; else if (s === 'AM') amSet = true; else fail();
        v = v.slice(2);
        break;
      }
      case 'tz': {
        const m = /^(UTC|GMT|[A-Z]{3,5})/.exec(v);
        if (m === null) fail();
        zoneName = m![1]!;
        v = v.slice(zoneName.length);
        if (zoneName === 'UTC' || zoneName === 'GMT') offset = 0;
        break;
      }
      case 'ISO8601TZ': tz(false, false, false, true); break;
      case 'ISO8601SecondsTZ': tz(false, true, false, true); break;
      case 'ISO8601ShortTZ': tz(false, false, true, true); break;
      case 'ISO8601ColonTZ': tz(true, false, false, true); break;
      case 'ISO8601ColonSecondsTZ': tz(true, true, false, true); break;
      case 'numTZ': tz(false, false, false, false); break;
      case 'numSecondsTz': tz(false, true, false, false); break;
      case 'numShortTZ': tz(false, false, true, false); break;
      case 'numColonTZ': tz(true, false, false, false); break;
      case 'numColonSecondsTZ': tz(true, true, false, false); break;
      case 'frac0': case 'frac9': {
        if (v[0] !== '.' && v[0] !== ',') {
          if (c.k === 'frac9') break;
          fail();
        }
        let j = 1;
        while (isDigitAt(v, j)) j++;
        if (c.k === 'frac0' && j - 1 !== c.n) fail();
        nanos = Number((v.slice(1, j) + '000000000').slice(0, 9));
        v = v.slice(j);
        break;
      }
    }
  }
  if (v !== '') throw new TimeError(`parsing time ${JSON.stringify(value)}: extra text: ${JSON.stringify(v)}`);
  if (pmSet && hour < 12) hour += 12;
  else if (amSet && hour === 12) hour = 0;
  if (yday >= 0) {
    const leap = isLeap(year);
    if (yday < 1 || yday > (leap ? 366 : 365)) fail(': day-of-year out of range');
    const d = civilFromDays(daysFromCivil(year, 1n, 1n) + BigInt(yday - 1));
    month = d.month;
    day = d.day;
  }
  const dim = [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  if (day < 1 || day > dim) throw new TimeError(`parsing time ${JSON.stringify(value)}: day out of range`);
  const days = daysFromCivil(year, BigInt(month), BigInt(day));
  const secs = days * SEC_PER_DAY + BigInt(hour * 3600 + minute * 60 + second) - BigInt(offset ?? 0);
  return secs * NS_PER_SEC + BigInt(nanos);
}
