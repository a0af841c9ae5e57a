/**
 * The weights sidecar (reference: beam_mcp docs/connectome-canonical.md, "The sidecar"):
 * `{"schema_version":4,"weights":[...]}`, one entry per weighted edge with `from`, `kind`,
 * `provenance`, `to`, `weight` in that order, sorted like the graph's edges. Never hashed with
 * the graph. Integer weights are integers; a float weight uses Erlang's shortest round-trip
 * placement so our sidecar matches a BEAM host's byte for byte.
 */
import { ByteSink } from '../canonical/bytes.ts';
import { quoteString } from '../canonical/json.ts';
import { checkGraph, type Graph, type GraphInput, type Weight } from './graph.ts';
import type { SchemaVersion } from './vocabulary.ts';
import { schemaVersionFor } from './graph-bytes.ts';

const TWO53 = 2n ** 53n;
const LIMIT1 = 2n ** 52n / 5n;
const LIMIT2 = 2n ** 51n / 25n;

/**
 * A float in the placement of `:erlang.float_to_binary(f, [:short])`.
 * @example erlangShortFloat(0.1) // '0.1'
 * @example erlangShortFloat(1e15) // '1.0e15'
 */
export function erlangShortFloat(x: number): string {
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  const [mant, expText] = Math.abs(x).toExponential().split('e') as [string, string];
  const digits = mant.replace('.', '').replace(/0+$/, '') || '0';
  const L = digits.length;
  const E = Number(expText); // exponent of the first digit
  const e = E - L + 1; // value = D x 10^e
  let plain: boolean;
  if (L === 1) plain = e >= -4 && e <= 2;
  else plain = e >= -(L + 2) && e <= (e + L - 1 >= 10 ? 2 : 1);
  if (plain) {
    const D = BigInt(digits);
    if ((e === 0 && D >= TWO53) || (e === 1 && D > LIMIT1) || (e === 2 && D > LIMIT2)) plain = false;
  }
  if (!plain) return `${sign}${digits[0]}.${L > 1 ? digits.slice(1) : '0'}e${E}`;
  if (e >= 0) return `${sign}${digits}${'0'.repeat(e)}.0`;
  if (L + e > 0) return `${sign}${digits.slice(0, L + e)}.${digits.slice(L + e)}`;
  return `${sign}0.${'0'.repeat(-(L + e))}${digits}`;
}

function weightText(w: Weight): string {
  if (typeof w === 'bigint') return w.toString();
  if (Number.isInteger(w) && !Object.is(w, -0)) return Number.isSafeInteger(w) ? String(w) : BigInt(w).toString();
  return erlangShortFloat(w);
}

/** The sidecar's bytes for a graph's weighted edges. */
export function encodeSidecar(graph: Graph | GraphInput, options: { readonly schemaVersion?: SchemaVersion } = {}): Uint8Array {
  const g = checkGraph(graph);
  const sink = new ByteSink();
  sink.write(`{"schema_version":${schemaVersionFor(g, options)},"weights":[`);
  let first = true;
  let chunk = '';
  for (const e of g.edges) {
    if (e.weight === undefined) continue;
    chunk += `${first ? '' : ','}{"from":${quoteString(e.from)},"kind":"${e.kind}","provenance":"${e.provenance}","to":${quoteString(e.to)},"weight":${weightText(e.weight)}}`;
    first = false;
    if (chunk.length > 8192) {
      sink.write(chunk);
      chunk = '';
    }
  }
  sink.write(`${chunk}]}`);
  return sink.bytes();
}
