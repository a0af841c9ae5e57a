/**
 * A bundle's `.manifest`, decoded as OPA decodes it into its Go struct (keys matched
 * case-insensitively, unknown keys ignored, a wrong type refused, `roots` defaulting to `[""]`),
 * and the Rego version the manifest gives each module (`file_rego_versions` globs, then
 * `rego_version`).
 */
import type { RegoVersion } from '../rego/index.ts';
import { refuse, type Where } from './entry-fault.ts';
import { setOwn, toJSIn } from './data-file.ts';
import { goFold, type JNode } from './go-json.ts';

export interface WasmResolver {
  readonly entrypoint: string;
  readonly module: string;
  readonly annotations?: unknown[];
}

/** The manifest after OPA's decoding and defaults. */
export interface BundleManifest {
  readonly revision: string;
  /** Roots trimmed of `/`; `[""]` (everything) when the manifest names none. */
  readonly roots: readonly string[];
  readonly rego_version?: number;
  readonly file_rego_versions?: Readonly<Record<string, number>>;
  readonly wasm: readonly WasmResolver[];
  readonly metadata?: Readonly<Record<string, unknown>>;
}

const MANIFEST_FIELDS = ['revision', 'roots', 'wasm', 'rego_version', 'file_rego_versions', 'metadata'] as const;
type ManifestField = (typeof MANIFEST_FIELDS)[number];

function fieldOf(key: string, fields: readonly string[]): string | undefined {
  if (fields.includes(key)) return key;
  const f = goFold(key);
  return fields.find((x) => goFold(x) === f);
}

function goInt(n: JNode): number | undefined {
  if (n.t !== 'num' || !/^-?[0-9]+$/.test(n.lit)) return undefined;
  const v = Number(n.lit);
  return Number.isSafeInteger(v) ? v : undefined;
}

export function decodeManifest(node: JNode | undefined, w: Where): BundleManifest {
  let revision = '';
  let roots: string[] | undefined;
  let regoVersion: number | undefined;
  let fileRegoVersions: Record<string, number> | undefined;
  let wasm: { entrypoint: string; module: string; annotations?: unknown[] }[] = [];
  let metadata: Record<string, unknown> | undefined;
  const wrong: (field: string, n: JNode) => never = (field, n) => refuse(w, `cannot decode ${field}: a JSON ${n.t === 'lit' ? JSON.stringify(n.v) : n.t} does not fit`);
  const str = (field: string, n: JNode, prior: string): string => (n.t === 'str' ? n.v : n.t === 'lit' && n.v === null ? prior : wrong(field, n));
  if (node !== undefined && !(node.t === 'lit' && node.v === null)) {
    if (node.t !== 'obj') wrong('the manifest', node);
    for (const [k, v] of node.entries) {
      const f = fieldOf(k, MANIFEST_FIELDS) as ManifestField | undefined;
      const isNull = v.t === 'lit' && v.v === null;
      switch (f) {
        case 'revision':
          revision = str('revision', v, revision);
          break;
        case 'roots':
          if (isNull) roots = undefined;
          else if (v.t !== 'arr') wrong('roots', v);
          else roots = v.items.map((x) => str('roots[]', x, ''));
          break;
        case 'rego_version':
          if (isNull) regoVersion = undefined;
          else regoVersion = goInt(v) ?? wrong('rego_version', v);
          break;
        case 'file_rego_versions':
          if (isNull) fileRegoVersions = undefined;
          else if (v.t !== 'obj') wrong('file_rego_versions', v);
          else {
            fileRegoVersions ??= {};
            for (const [g, x] of v.entries) setOwn(fileRegoVersions, g, x.t === 'lit' && x.v === null ? 0 : (goInt(x) ?? wrong('file_rego_versions', x)));
          }
          break;
        case 'metadata':
          if (isNull) metadata = undefined;
          else if (v.t !== 'obj') wrong('metadata', v);
          else {
            metadata ??= {};
            for (const [g, x] of v.entries) setOwn(metadata, g, toJSIn(x, w));
          }
          break;
        case 'wasm': {
          if (isNull) {
            wasm = [];
            break;
          }
          if (v.t !== 'arr') wrong('wasm', v);
          const prior = wasm;
          wasm = v.items.map((x, i) => {
            const r = { ...(prior[i] ?? { entrypoint: '', module: '' }) };
            if (x.t === 'lit' && x.v === null) return r;
            if (x.t !== 'obj') wrong(`wasm[${i}]`, x);
            for (const [wk, wv] of x.entries) {
              const wf = fieldOf(wk, ['entrypoint', 'module', 'annotations']);
              if (wf === 'entrypoint') r.entrypoint = str('wasm[].entrypoint', wv, r.entrypoint);
              else if (wf === 'module') r.module = str('wasm[].module', wv, r.module);
              else if (wf === 'annotations') {
                if (wv.t === 'arr') r.annotations = wv.items.map((a) => toJSIn(a, w));
                else if (!(wv.t === 'lit' && wv.v === null)) wrong('wasm[].annotations', wv);
              }
            }
            return r;
          });
          break;
        }
        default:
      }
    }
  }
  return {
    revision,
    roots: (roots ?? ['']).map((r) => r.replace(/^\/+|\/+$/g, '')),
    ...(regoVersion !== undefined ? { rego_version: regoVersion } : {}),
    ...(fileRegoVersions !== undefined ? { file_rego_versions: fileRegoVersions } : {}),
    wasm,
    ...(metadata !== undefined ? { metadata } : {}),
  };
}

/** gobwas/glob without separators, as OPA compiles `file_rego_versions` keys. */
function globRegExp(glob: string): RegExp | undefined {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '\\') {
      const n = glob[++i];
      if (n === undefined) return undefined;
      re += n.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
    } else if (c === '*') {
      while (glob[i + 1] === '*') i++;
      re += '[^]*';
    } else if (c === '?') re += '[^]';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end < 0) return undefined;
      let body = glob.slice(i + 1, end);
      const neg = body.startsWith('!');
      if (neg) body = body.slice(1);
      re += `[${neg ? '^' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
      i = end;
    } else if (c === '{') {
      const end = glob.indexOf('}', i + 1);
      if (end < 0) return undefined;
      const alts = glob.slice(i + 1, end).split(',').map((a) => globRegExp(a));
      if (alts.some((a) => a === undefined)) return undefined;
      re += `(?:${alts.map((a) => a!.source.slice(1, -1)).join('|')})`;
      i = end;
    } else re += c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 'u');
}

/** The Rego version a module entry is parsed at, or a refusal when the manifest asks for one toolgate cannot read. */
export function regoVersionFor(entryName: string, m: BundleManifest, w: Where): RegoVersion {
  // OPA tries the globs in sorted key order; the first that matches decides.
  let v: number | undefined;
  const globs = Object.keys(m.file_rego_versions ?? {}).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  for (const g of globs) {
    const re = globRegExp(g);
    if (re === undefined) refuse({ ...w, entry: '.manifest' }, `file_rego_versions glob ${JSON.stringify(g)} does not compile`);
    if (re.test(entryName)) {
      v = m.file_rego_versions![g];
      break;
    }
  }
  v ??= m.rego_version;
  if (v === undefined || v === 1) return 'v1';
  if (v === 0) return 'v0';
  if (v === 2) return refuse(w, 'rego_version 2 is not supported by toolgate (OPA 1.22 accepts it)');
  return refuse(w, `unknown bundle rego-version ${v} (expected 0, 1 or 2)`);
}
