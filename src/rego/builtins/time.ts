/**
 * time.* builtins over Go's time semantics (lib/gotime.ts). The clock is the context's injected
 * `now()`; zone names resolve through Intl; "Local" is UTC so that results never depend on the host.
 */
import { type Value, isNumber } from '../value.ts';
import { normBigInt, toBigInt } from '../number-value.ts';
import { registerBuiltins, type BuiltinDef } from './registry.ts';
import { BuiltinError, arg, builtinError, int, oneOfError, str } from './args.ts';
import { MAX_NS, MIN_NS, TimeError, WEEKDAY_NAMES, addDate, breakDown, civilFromDays, daysFromCivil, parseDuration } from './lib/gotime.ts';
import { RFC3339, RFC3339_NANO, formatTime, parseTime } from './lib/gotime-layout.ts';

interface TimeArg {
  ns: bigint;
  zone: string;
  layout?: string;
}

function nsOf(name: string, v: Value): bigint {
  if (!isNumber(v)) throw oneOfError(name, 1, ['number', 'array'], v);
  const b = toBigInt(v);
  // OPA reads the timestamp as a Go int64
  if (b !== undefined && (b > 9223372036854775807n || b < -9223372036854775808n)) throw builtinError(name, 'timestamp too big');
  // OPA reads it as an exact int64: a fractional timestamp is refused the same way
  if (b === undefined) throw builtinError(name, 'timestamp too big');
  return b;
}

function timeArg(name: string, args: Value[], withLayout = false): TimeArg {
  const v = arg(args, 0);
  if (Array.isArray(v)) {
    const max = withLayout ? 3 : 2;
    if (v.length < 1 || v.length > max) {
      throw new BuiltinError('eval_type_error', `${name}: operand 1 must be array of ${max === 3 ? 'one, two or three' : 'one or two'} elements but got array of ${v.length} elements`);
    }
    const ns = nsOf(name, v[0]!);
    const zone = v[1] ?? '';
    if (typeof zone !== 'string') throw new BuiltinError('eval_type_error', `${name}: timezone must be a string`);
    const layout = v[2];
    if (layout !== undefined && typeof layout !== 'string') throw new BuiltinError('eval_type_error', `${name}: layout must be a string`);
    checkZone(name, zone);
    return { ns, zone, ...(layout === undefined ? {} : { layout }) };
  }
  return { ns: nsOf(name, v), zone: '' };
}

function checkZone(name: string, zone: string): void {
  if (zone === '' || zone === 'UTC' || zone === 'Local') return;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    throw builtinError(name, `unknown time zone ${zone}`);
  }
}

function inRange(name: string, ns: bigint): bigint {
  if (ns < MIN_NS || ns > MAX_NS) throw builtinError(name, 'time outside of valid range');
  return ns;
}

function guard<T>(name: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof TimeError) throw builtinError(name, e.message);
    throw e;
  }
}

const LAYOUT_NAMES: Record<string, string> = {
  ANSIC: 'Mon Jan _2 15:04:05 2006',
  UnixDate: 'Mon Jan _2 15:04:05 MST 2006',
  RubyDate: 'Mon Jan 02 15:04:05 -0700 2006',
  RFC822: '02 Jan 06 15:04 MST',
  RFC822Z: '02 Jan 06 15:04 -0700',
  RFC850: 'Monday, 02-Jan-06 15:04:05 MST',
  RFC1123: 'Mon, 02 Jan 2006 15:04:05 MST',
  RFC1123Z: 'Mon, 02 Jan 2006 15:04:05 -0700',
  RFC3339,
  RFC3339Nano: RFC3339_NANO,
  Kitchen: '3:04PM',
  Stamp: 'Jan _2 15:04:05',
  StampMilli: 'Jan _2 15:04:05.000',
  StampMicro: 'Jan _2 15:04:05.000000',
  StampNano: 'Jan _2 15:04:05.000000000',
  DateTime: '2006-01-02 15:04:05',
  DateOnly: '2006-01-02',
  TimeOnly: '15:04:05',
};

function layoutOf(l: string): string {
  return LAYOUT_NAMES[l] ?? l;
}

export const TIME_BUILTINS: BuiltinDef[] = [
  { name: 'time.now_ns', arity: 0, nondeterministic: true, fn: (_a, ctx) => normBigInt(ctx.now()) },
  {
    name: 'time.parse_ns',
    arity: 2,
    fn: (a) => {
      const name = 'time.parse_ns';
      const layout = layoutOf(str(name, a, 0));
      const value = str(name, a, 1);
      return normBigInt(inRange(name, guard(name, () => parseTime(layout, value))));
    },
  },
  {
    name: 'time.parse_rfc3339_ns',
    arity: 1,
    fn: (a) => {
      const name = 'time.parse_rfc3339_ns';
      const value = str(name, a, 0);
      return normBigInt(inRange(name, guard(name, () => parseTime(RFC3339, value))));
    },
  },
  {
    name: 'time.parse_duration_ns',
    arity: 1,
    fn: (a) => {
      const name = 'time.parse_duration_ns';
      const value = str(name, a, 0);
      return normBigInt(guard(name, () => parseDuration(value)));
    },
  },
  {
    name: 'time.format',
    arity: 1,
    fn: (a) => {
      const name = 'time.format';
      const t = timeArg(name, a, true);
      return guard(name, () => formatTime(t.ns, t.zone, layoutOf(t.layout ?? RFC3339_NANO)));
    },
  },
  {
    name: 'time.date',
    arity: 1,
    fn: (a) => {
      const t = timeArg('time.date', a);
      const b = guard('time.date', () => breakDown(t.ns, t.zone));
      return [normBigInt(b.year), b.month, b.day];
    },
  },
  {
    name: 'time.clock',
    arity: 1,
    fn: (a) => {
      const t = timeArg('time.clock', a);
      const b = guard('time.clock', () => breakDown(t.ns, t.zone));
      return [b.hour, b.minute, b.second];
    },
  },
  {
    name: 'time.weekday',
    arity: 1,
    fn: (a) => {
      const t = timeArg('time.weekday', a);
      const b = guard('time.weekday', () => breakDown(t.ns, t.zone));
      return WEEKDAY_NAMES[b.weekday]!;
    },
  },
  {
    name: 'time.add_date',
    arity: 4,
    fn: (a) => {
      const name = 'time.add_date';
      const t = timeArg(name, a);
      const y = int(name, a, 1);
      const m = int(name, a, 2);
      const d = int(name, a, 3);
      const r = guard(name, () => addDate(t.ns, t.zone, y, m, d));
      // OPA refuses a result that Go's UnixNano cannot hold (outside int64)
      return normBigInt(inRange(name, r));
    },
  },
  {
    name: 'time.diff',
    arity: 2,
    fn: (a) => {
      const name = 'time.diff';
      const t1 = timeArg(name, [arg(a, 0)]);
      const v2 = arg(a, 1);
      let t2: TimeArg;
      try {
        t2 = timeArg(name, [v2]);
      } catch (e) {
        if (e instanceof BuiltinError) throw new BuiltinError(e.code, e.message.replace('operand 1', 'operand 2'));
        throw e;
      }
      let [x, y] = [t1.ns, t2.ns];
      if (x > y) [x, y] = [y, x];
      const zone = t1.zone;
      const b1 = guard(name, () => breakDown(x, zone));
      const b2 = guard(name, () => breakDown(y, zone));
      let year = b2.year - b1.year;
      let month = b2.month - b1.month;
      let day = b2.day - b1.day;
      let hour = b2.hour - b1.hour;
      let min = b2.minute - b1.minute;
      let sec = b2.second - b1.second;
      if (sec < 0) { sec += 60; min--; }
      if (min < 0) { min += 60; hour--; }
      if (hour < 0) { hour += 24; day--; }
      if (day < 0) {
        const d32 = civilFromDays(daysFromCivil(b1.year, BigInt(b1.month), 32n));
        day += 32 - d32.day;
        month--;
      }
      if (month < 0) { month += 12; year--; }
      return [normBigInt(year), month, day, hour, min, sec];
    },
  },
];

registerBuiltins(TIME_BUILTINS);
