/**
 * What the real `opa eval` answers for a case of the regorus conformance set, run as regorus's harness
 * runs it (v0-compatible modules except binding/bindings.yaml, strict builtin errors unless the case
 * says `strict: false`, once per input of `many!`). The regorus files state errors in regorus's own
 * wording, so the conformance runner holds our errors to OPA's code and message instead.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OpaAnswer } from '../../src/cli/rego-conformance/opa-answers.ts';
import type { RawCase } from '../../src/cli/rego-conformance/corpus-file.ts';

/** JSON text of a value read from the corpus YAML (integers as BigInt, kept exact). */
function jsonText(x: unknown): string {
  if (typeof x === 'bigint') return x.toString();
  if (Array.isArray(x)) return `[${x.map(jsonText).join(',')}]`;
  if (x instanceof Map) return jsonText(Object.fromEntries([...x].map(([k, v]) => [String(k), v])));
  if (x !== null && typeof x === 'object') return `{${Object.entries(x).map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`).join(',')}}`;
  return JSON.stringify(x) ?? 'null';
}

/** Each input the case runs with (`undefined` for none). */
function inputsOf(c: RawCase): unknown[] {
  const raw = c.input;
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw) && 'many!' in raw) return (raw as { 'many!': unknown[] })['many!'];
  return [raw];
}

interface Row {
  readonly expressions: { value: unknown }[];
  readonly bindings?: Record<string, unknown>;
}

/** One solution as short text shows it: its bindings, or else its expressions' values (one alone). */
function compactRow(r: Row): unknown {
  if (r.bindings && Object.keys(r.bindings).length > 0) return r.bindings;
  return r.expressions.length === 1 ? r.expressions[0]!.value : r.expressions.map((e) => e.value);
}

/** OPA's answer as one line: `code: message`, or the solutions' JSON. */
export function answerText(a: OpaAnswer): string {
  return a.kind === 'error' ? `${a.code}: ${a.message}` : JSON.stringify(a.result);
}

export function opaAnswerForRegorusCase(opa: string, file: string, c: RawCase): OpaAnswer {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-regorus-opa-'));
  try {
    const policy = join(dir, 'policy');
    mkdirSync(policy);
    const modules = Array.isArray(c.modules) ? (c.modules as unknown[]) : [];
    modules.forEach((m, i) => writeFileSync(join(policy, `rego_${i}.rego`), String(m)));
    if (c.data !== undefined && c.data !== null) writeFileSync(join(policy, 'data.json'), jsonText(c.data));
    const v1 = file.endsWith('binding/bindings.yaml');
    const strict = c.strict === undefined ? true : c.strict === true;
    const results: unknown[] = [];
    for (const input of inputsOf(c)) {
      const args = ['eval', '--format', 'json', '-d', policy, ...(v1 ? [] : ['--v0-compatible']), ...(strict ? ['--strict-builtin-errors'] : [])];
      if (input !== undefined) {
        writeFileSync(join(dir, 'input.json'), jsonText(input));
        args.push('-i', join(dir, 'input.json'));
      }
      args.push(String(c.query));
      const r = spawnSync(opa, args, { encoding: 'utf8', timeout: 60_000 });
      const out = JSON.parse(r.stdout || '{}') as { errors?: { code: string; message: string }[]; result?: Row[] };
      const first = out.errors?.[0];
      // the engine names the modules rego_0, rego_1, ... as regorus's harness does
      if (first) return { kind: 'error', code: first.code, message: first.message.split(`${policy}/`).join('').replace(/(rego_\d+)\.rego/g, '$1') };
      results.push(...(out.result ?? []).map(compactRow));
    }
    return { kind: 'result', result: results };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
