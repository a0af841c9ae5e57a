/**
 * METADATA annotations, as OPA reads them: a comment block whose first line is `# METADATA`, the
 * rest YAML, attached to the package or rule that follows it; and the values `rego.metadata.rule()`
 * and `rego.metadata.chain()` give inside a rule, which OPA computes at compile time (so they are
 * constants here too: the calls are replaced by their values before compiling).
 *
 * The YAML keys OPA knows are normalised as OPA marshals them: `authors` as `{name, email}` objects
 * (from `Name <email>` strings too), `related_resources` as `{ref, description}`, and `scope`
 * defaulted (`package` before a package, `rule` before a rule, `document` for an entrypoint).
 * `schemas` are kept as written (OPA turns them into `{path, schema | definition}`).
 */
import { createRequire } from 'node:module';
import type { Module, Rule, Term } from './ast.ts';
import { walkLiteral, walkTerms } from './term-walk.ts';
import { RegoError } from './errors.ts';
import { ObjectValue, type Value } from './value.ts';
import { fromJSON } from './value-json.ts';

// `yaml` loads on the first METADATA block, not with the engine: importing it costs ~100 ms per run.
const yaml = (): typeof import('yaml') => createRequire(import.meta.url)('yaml') as typeof import('yaml');

export type AnnotationScope = 'rule' | 'document' | 'package' | 'subpackages';

interface Block {
  /** 1-based line of `# METADATA`, and of the block's last comment line. */
  readonly line: number;
  readonly endLine: number;
  readonly yaml: string;
}

/** The METADATA comment blocks of a module's text, in order. */
function metadataBlocks(text: string): Block[] {
  const lines = text.split('\n');
  const out: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    if (/^\s*#\s*METADATA\s*$/.test(lines[i] as string)) {
      const start = i;
      const body: string[] = [];
      i++;
      while (i < lines.length && /^\s*#/.test(lines[i] as string) && !/^\s*#\s*METADATA\s*$/.test(lines[i] as string)) {
        body.push((lines[i] as string).replace(/^\s*#/, ''));
        i++;
      }
      out.push({ line: start + 1, endLine: start + body.length + 1, yaml: body.join('\n') });
    } else i++;
  }
  return out;
}

function author(x: unknown): Value {
  if (typeof x === 'string') {
    const m = /^\s*(.*?)\s*<([^>]*)>\s*$/.exec(x);
    if (m) return fromJSON(m[1] ? { name: m[1], email: m[2] } : { email: m[2] });
    return fromJSON({ name: x.trim() });
  }
  return fromJSON(x);
}

function resource(x: unknown): Value {
  return fromJSON(typeof x === 'string' ? { ref: x } : x);
}

function annotationValue(raw: Record<string, unknown>, scope: AnnotationScope): ObjectValue {
  const o = new ObjectValue();
  o.set('scope', scope);
  for (const [k, v] of Object.entries(raw)) {
    if (k === 'scope' || v === undefined || v === null) continue;
    if (k === 'authors' && Array.isArray(v)) o.set(k, v.map(author));
    else if (k === 'related_resources' && Array.isArray(v)) o.set(k, v.map(resource));
    else o.set(k, fromJSON(v));
  }
  return o;
}

interface Attached {
  readonly scope: AnnotationScope;
  readonly value: ObjectValue;
  /** The rule it sits on, or undefined for the package. */
  readonly rule: Rule | undefined;
}

/** Each block of a module on the package or rule after it. */
function attach(m: Module, text: string): Attached[] {
  const out: Attached[] = [];
  for (const b of metadataBlocks(text)) {
    let raw: unknown;
    try {
      raw = yaml().parse(b.yaml) ?? {};
    } catch (e) {
      throw new RegoError('rego_parse_error', `yaml: ${(e as Error).message.split('\n')[0]}`, { file: m.file, line: b.line, col: 1 });
    }
    if (typeof raw !== 'object' || Array.isArray(raw)) throw new RegoError('rego_parse_error', 'yaml: the METADATA block is not a mapping', { file: m.file, line: b.line, col: 1 });
    const rule = m.rules.find((r) => r.loc.line > b.endLine);
    const onPackage = m.pkgLoc.line > b.endLine && (rule === undefined || m.pkgLoc.line < rule.loc.line);
    const declared = (raw as Record<string, unknown>).scope;
    // an entrypoint is a document: OPA gives an entrypoint annotation on a rule the scope `document`
    const entrypoint = (raw as Record<string, unknown>).entrypoint === true;
    const scope = (typeof declared === 'string' ? declared : onPackage ? 'package' : entrypoint ? 'document' : 'rule') as AnnotationScope;
    out.push({ scope, value: annotationValue(raw as Record<string, unknown>, scope), rule: onPackage ? undefined : rule });
  }
  return out;
}

/** The data path of a rule: its package and the constant part of its head. */
function rulePath(m: Module, r: Rule): string[] {
  const out = m.pkg.slice(1);
  for (const t of r.ref) {
    if (t.type === 'var' && out.length === m.pkg.length - 1) out.push(t.name);
    else if (t.type === 'value' && typeof t.value === 'string') out.push(t.value);
    else break;
  }
  return out;
}

function entry(path: readonly string[], annotations?: ObjectValue): ObjectValue {
  const o = new ObjectValue();
  o.set('path', [...path]);
  if (annotations) o.set('annotations', annotations);
  return o;
}

function isMetadataCall(t: Term): t is Term & { type: 'call' } {
  return t.type === 'call' && t.args.length === 0 && (t.name === 'rego.metadata.rule' || t.name === 'rego.metadata.chain');
}

/**
 * Replaces `rego.metadata.rule()` and `rego.metadata.chain()` in every rule by their values.
 * Modules without those calls are left untouched (their annotations are not read).
 */
export function rewriteMetadataCalls(modules: readonly Module[], texts: readonly string[]): void {
  // a call's name is spelled out in its module's text: without the word, no module holds one
  if (!texts.some((t) => t.includes('metadata'))) return;
  const calls: { m: Module; r: Rule; t: Term & { type: 'call' } }[] = [];
  for (const m of modules) {
    for (const r of m.rules) {
      const visit = (t: Term): void => {
        if (isMetadataCall(t)) calls.push({ m, r, t });
      };
      for (const x of [r, ...r.elses]) {
        for (const t of [...x.ref, x.value, ...(x.key ? [x.key] : []), ...x.args]) walkTerms(t, visit);
        for (const l of x.body) walkLiteral(l, visit);
      }
    }
  }
  if (calls.length === 0) return;
  const attached = modules.map((m, i) => ({ m, list: attach(m, texts[i] ?? '') }));
  const all = attached.flatMap(({ m, list }) => list.map((a) => ({ m, ...a })));
  for (const { m, r, t } of calls) {
    const own = all.find((a) => a.rule === r && a.scope === 'rule');
    let value: Value;
    if (t.name === 'rego.metadata.rule') value = own?.value ?? new ObjectValue();
    else {
      const path = rulePath(m, r);
      const chain: Value[] = [entry(path, own?.value)];
      for (const a of all) if (a.scope === 'document' && a.rule && rulePath(a.m, a.rule).join('.') === path.join('.')) chain.push(entry(path, a.value));
      const pkg = m.pkg.slice(1);
      for (const a of all) if (a.scope === 'package' && a.rule === undefined && a.m.pkg.join('.') === m.pkg.join('.')) chain.push(entry(pkg, a.value));
      for (let n = pkg.length; n >= 0; n--) {
        const prefix = pkg.slice(0, n).join('.');
        for (const a of all) if (a.scope === 'subpackages' && a.rule === undefined && a.m.pkg.slice(1).join('.') === prefix) chain.push(entry(pkg.slice(0, n), a.value));
      }
      value = chain;
    }
    const replaced = t as unknown as { type: string; value: Value; name?: string; args?: Term[] };
    delete replaced.name;
    delete replaced.args;
    replaced.type = 'value';
    replaced.value = value;
  }
}
