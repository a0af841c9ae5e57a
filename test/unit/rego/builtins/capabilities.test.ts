/**
 * `toolgate rego capabilities`: coverage of the pinned OPA's builtins, and the OPA capabilities
 * document of this engine, which the real `opa check --capabilities` honours.
 */
import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../helpers/cli.ts';
import { describeWithOpa, opa, runOpa } from '../../../helpers/opa.ts';
import { builtinCoverage, pinnedOpaCapabilities } from '../../../../src/rego/builtins/capabilities.ts';
import { compileModules, toJSON } from '../../../../src/rego/index.ts';

function stripDescriptions(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(stripDescriptions);
  if (x !== null && typeof x === 'object') return Object.fromEntries(Object.entries(x).filter(([k]) => k !== 'description').map(([k, v]) => [k, stripDescriptions(v)]));
  return x;
}

describe('rego capabilities', () => {
  it('classifies every builtin of the pinned OPA, network builtins refused', async () => {
    const r = await runCli(['rego', 'capabilities', '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const cov = r.json<ReturnType<typeof builtinCoverage>>();
    expect(cov.opa_version).toBe('v1.22.3');
    expect(cov.counts.total).toBe(pinnedOpaCapabilities().builtins.length);
    expect(cov.counts.implemented + cov.counts.refused + cov.counts.missing).toBe(cov.counts.total);
    const status = new Map(cov.builtins.map((b) => [b.name, b.status]));
    expect(status.get('http.send')).toBe('refused');
    expect(status.get('net.lookup_ip_addr')).toBe('refused');
    expect(cov.counts.refused).toBe(2);
    expect(status.get('count')).toBe('implemented');
    expect(status.get('eq')).toBe('implemented');
    // every builtin of the pinned OPA but the two network ones
    expect(cov.counts.missing).toBe(0);
    expect(cov.counts.implemented).toBe(cov.counts.total - 2);
    for (const name of ['graphql.parse', 'crypto.x509.parse_certificates', 'json.match_schema', 'providers.aws.sign_req', 'uri.parse', 'internal.template_string']) {
      expect(status.get(name), name).toBe('implemented');
    }
    const text = await runCli(['rego', 'capabilities']);
    expect(text.stdout).toMatch(/^OPA v1\.22\.3: \d+ builtins; \d+ implemented, 2 refused, \d+ missing/);
    expect(text.stdout).toContain('http.send  (no network access; mock it with `with`)');
  });

  it('network builtins stop evaluation with a clear error unless mocked with `with`', () => {
    const p = compileModules([{ name: 'n.rego', text: 'package n\n\nr := http.send({"method": "GET", "url": "http://127.0.0.1:1"})\nmocked := x if {\n  x := r with http.send as {"status_code": 200}\n}\nip := net.lookup_ip_addr("example.com")\nliteral := net.lookup_ip_addr("10.0.0.1")' }]);
    expect(() => p.evalRule('data.n.r')).toThrow(/http\.send: not supported by the builtin Rego engine \(no network access\); mock it with `with`/);
    expect(toJSON(p.evalRule('data.n.mocked')!)).toEqual({ status_code: 200 });
    expect(() => p.evalRule('data.n.ip')).toThrow(/net\.lookup_ip_addr: not supported/);
    // what needs no lookup is answered (net-opa.test.ts holds these to OPA)
    expect(toJSON(p.evalRule('data.n.literal')!)).toEqual(['10.0.0.1']);
  });
});

describeWithOpa('rego capabilities against the real opa', () => {
  it('the vendored capabilities are the pinned opa\'s `opa capabilities --current`', () => {
    const r = runOpa(['capabilities', '--current']);
    expect(r.code, r.stderr).toBe(0);
    const live = stripDescriptions(JSON.parse(r.stdout)) as Record<string, unknown>;
    const { opa_version, generated_by: _g, ...vendored } = pinnedOpaCapabilities() as unknown as Record<string, unknown>;
    expect(vendored).toEqual(live);
    expect(opa.ok && `v${opa.version}`).toBe(opa_version);
  });

  it('opa check --capabilities with the written file accepts implemented and refused builtins and refuses unknown ones', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-caps-'));
    const caps = join(dir, 'caps.json');
    const r = await runCli(['rego', 'capabilities', '--opa-capabilities-out', caps]);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(readFileSync(caps, 'utf8')) as { builtins: { name: string }[]; features: string[] };
    expect(doc.features).toContain('rego_v1');
    // nothing is missing, so the engine's document lists every builtin of the pinned OPA
    expect(doc.builtins.map((b) => b.name).sort()).toEqual(pinnedOpaCapabilities().builtins.map((b) => b.name).sort());
    const check = (name: string, body: string) => {
      const f = join(dir, `${name}.rego`);
      writeFileSync(f, `package t\n\n${body}\n`);
      return runOpa(['check', '--capabilities', caps, f]);
    };
    const ok = check('implemented', 'p := count([1, 2]) if startswith("ab", "a")\nq := regex.match("a+", "aa")\ns := http.send({"method": "GET", "url": "http://x"})\nt := providers.aws.sign_req({}, {}, 0)\nu := graphql.is_valid("{ a }", "type Query { a: Int }")');
    expect(ok.code, ok.stderr).toBe(0);
    const unknown = check('unknown', 'p := nosuch.builtin(1)');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr + unknown.stdout).toMatch(/undefined function nosuch\.builtin/);
  });
});
