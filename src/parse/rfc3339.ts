/**
 * RFC 3339 timestamps (section 5.6, `date-time`) read strictly, to epoch milliseconds. Date.parse
 * alone also takes `1` (the year 2001), `2026-01-01` (midnight UTC), `Mon, 01 Jan 2026 ...` and a
 * time with no zone (local time), and rolls `2026-02-30` over to March 2 and `T24:00:00` to the
 * next day: a mistyped or hostile time silently became another one.
 */

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?([Zz]|[+-](\d{2}):(\d{2}))$/;

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * The instant `text` names, or undefined when it is not an RFC 3339 date-time naming a real day and
 * time with a zone. `secondsOptional` also takes `HH:MM` (the window bounds always have).
 * Fractions past milliseconds are cut, as Date.parse cuts them.
 *
 * @example
 * rfc3339Ms('2026-01-01T00:00:00Z'); // 1767225600000
 * rfc3339Ms('2026-02-30T00:00:00Z'); // undefined
 */
export function rfc3339Ms(text: string, options: { readonly secondsOptional?: boolean } = {}): number | undefined {
  const m = DATE_TIME.exec(text);
  if (m === null) return undefined;
  const [, y, mo, d, h, mi, s, , , oh, om] = m;
  if (s === undefined && options.secondsOptional !== true) return undefined;
  const year = Number(y);
  const month = Number(mo);
  if (month < 1 || month > 12 || Number(d) < 1 || Number(d) > daysIn(year, month)) return undefined;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s ?? 0) > 59) return undefined;
  if (oh !== undefined && (Number(oh) > 23 || Number(om) > 59)) return undefined;
  const ms = Date.parse(text.toUpperCase());
  return Number.isNaN(ms) ? undefined : ms;
}
