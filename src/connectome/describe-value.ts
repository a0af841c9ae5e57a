/**
 * What a graph refusal says of a value it was given: the value as text a message can quote,
 * whatever it is (bigints as digits, cycles and class instances named rather than walked).
 */
import { isPlainObject } from '../canonical/json-object.ts';
import { JsonFloat } from '../canonical/strict-json.ts';

/** Renders a value for an error message (bigints as digits, anything else as it can). */
export function describeValue(v: unknown): string {
  const seen = new Set<unknown>();
  const walk = (x: unknown): string => {
    if (typeof x === 'bigint') return x.toString();
    if (typeof x === 'string') return JSON.stringify(x);
    if (typeof x === 'number') return Number.isFinite(x) ? String(x) : String(x);
    if (x === null || typeof x === 'boolean') return String(x);
    // A key the document does not have: never the word "undefined", which reads as a toolgate bug.
    if (x === undefined) return '(missing)';
    if (typeof x === 'function') return '<function>';
    if (typeof x === 'symbol') return x.toString();
    if (seen.has(x)) return '<cycle>';
    seen.add(x);
    if (Array.isArray(x)) return `[${x.map(walk).join(',')}]`;
    // A fraction as the file wrote it, not the parser's class that holds it.
    if (x instanceof JsonFloat) return x.text;
    if (!isPlainObject(x)) {
      const name = (x as { constructor?: { name?: string } }).constructor?.name ?? 'object';
      const s = (x as { toString(): string }).toString?.();
      return typeof s === 'string' && s !== '[object Object]' ? `${name}(${s})` : `<${name}>`;
    }
    return `{${Object.keys(x).map((k) => `${JSON.stringify(k)}:${walk(x[k])}`).join(',')}}`;
  };
  return walk(v);
}
