/**
 * Reading the Rego conformance corpus files (`rego-conformance/`, formats described in its README):
 * OPA's topdown case format and regorus's interpreter case format share a YAML shape.
 */
import { parseDocument } from 'yaml';

export type CorpusFormat = 'opa' | 'regorus';

/** The corpus format for a path: regorus when a path segment is `regorus`, else OPA's. */
export function formatForPath(path: string): CorpusFormat {
  return path.split(/[\\/]/).includes('regorus') ? 'regorus' : 'opa';
}

export interface RawCase {
  [k: string]: unknown;
}

/**
 * Parses a corpus file with `yaml` (integers as BigInt). `keepKeys` keeps mapping keys that are not
 * strings (`null:`, `true:`, `7:` in a regorus expected value are Rego keys of those types, as
 * regorus's harness reads them); they come back as `Map`s. A file `yaml` rejects is re-read once with
 * under-indented flow collections re-indented (PyYAML and older js-yaml accept those; the upstream file
 * `regorus/loop/chained.yaml` has one), then leniently (duplicate keys and other errors the YAML
 * spec lets a reader skip are tolerated), and otherwise the first parse error is thrown.
 */
export function parseCorpusFile(text: string, keepKeys = false): RawCase[] {
  const read = (t: string, lenient = false): unknown | undefined => {
    const d = parseDocument(t, { intAsBigInt: true, ...(lenient ? { strict: false, uniqueKeys: false } : {}) });
    if (d.errors.length > 0) return undefined;
    return keepKeys ? plainStringMaps(d.toJS({ mapAsMap: true })) : d.toJS();
  };
  let doc = read(text);
  if (doc === undefined) doc = read(reindentFlowCollections(text));
  if (doc === undefined) doc = read(text, true);
  if (doc === undefined) throw parseDocument(text).errors[0]!;
  const cases = (doc as { cases?: unknown } | null)?.cases;
  return Array.isArray(cases) ? (cases as RawCase[]) : [];
}

/** Maps whose keys are all strings become plain objects; others stay `Map`s (recursively). */
function plainStringMaps(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(plainStringMaps);
  if (x instanceof Map) {
    const entries = [...x.entries()].map(([k, v]) => [k, plainStringMaps(v)] as const);
    if (entries.every(([k]) => typeof k === 'string')) return Object.fromEntries(entries);
    return new Map(entries);
  }
  return x;
}

/**
 * Indents the continuation lines of a flow collection (`[ ... ]`, `{ ... }` spanning lines) deeper than
 * the line that opened it. Block scalars (`key: |`) are left alone; quotes and comments are respected.
 */
export function reindentFlowCollections(text: string): string {
  const out: string[] = [];
  let depth = 0;
  let flowIndent = 0;
  let blockParent = -1;
  for (let line of text.split('\n')) {
    const indent = line.length - line.trimStart().length;
    if (blockParent >= 0) {
      if (line.trim() === '' || indent > blockParent) {
        out.push(line);
        continue;
      }
      blockParent = -1;
    }
    if (depth > 0 && line.trim() !== '' && indent <= flowIndent) line = ' '.repeat(flowIndent + 2 - indent) + line;
    const before = depth;
    let quote = '';
    for (let i = 0; i < line.length; i++) {
      const c = line[i] as string;
      if (quote) {
        if (c === '\\' && quote === '"') i++;
        else if (c === quote) quote = '';
        continue;
      }
      if (c === '"' || c === "'") quote = c;
      else if (c === '#' && (i === 0 || /\s/.test(line[i - 1] as string))) break;
      else if (c === '[' || c === '{') depth++;
      else if (c === ']' || c === '}') depth = Math.max(0, depth - 1);
    }
    if (before === 0 && depth > 0) flowIndent = indent;
    if (depth === 0 && /(^|:|-)\s*[|>][-+0-9]*\s*(#.*)?$/.test(line)) blockParent = indent;
    out.push(line);
  }
  return out.join('\n');
}
