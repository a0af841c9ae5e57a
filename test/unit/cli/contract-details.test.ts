/** Contract details of issue 18: SOURCE_DATE_EPOCH against the previous artifact, and --algorithm usage. */
import { describe, it, expect } from 'vitest';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli.ts';
import { createdAtFromEnv, MAX_RFC3339_EPOCH } from '../../../src/cli/clock.ts';

const createdAt = (out: string) => JSON.parse(readFileSync(join(out, 'policy-bundle.json'), 'utf8')).created_at;

describe('SOURCE_DATE_EPOCH', () => {
  it('wins over the previous artifact created_at of unchanged inputs', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'toolgate-sde-')), 'out');
    const args = ['compile', '--example', 'quickstart', '--out', out];
    expect((await runCli(args, { env: { SOURCE_DATE_EPOCH: '1767225600' } })).code).toBe(0);
    expect(createdAt(out)).toBe('2026-01-01T00:00:00Z');
    expect((await runCli(args, { env: { SOURCE_DATE_EPOCH: '1800000000' } })).code).toBe(0);
    expect(createdAt(out)).toBe('2027-01-15T08:00:00Z');
    // without it, unchanged inputs keep the previous artifact's time
    expect((await runCli(args, { env: {} })).code).toBe(0);
    expect(createdAt(out)).toBe('2027-01-15T08:00:00Z');
  });

  it('is refused past 9999-12-31T23:59:59Z, with nothing written', async () => {
    expect(createdAtFromEnv({ SOURCE_DATE_EPOCH: String(MAX_RFC3339_EPOCH) })).toBe('9999-12-31T23:59:59Z');
    expect(() => createdAtFromEnv({ SOURCE_DATE_EPOCH: String(MAX_RFC3339_EPOCH + 1) })).toThrowError(expect.objectContaining({ code: 'USAGE' }));
    const out = mkdtempSync(join(tmpdir(), 'toolgate-sde-'));
    const r = await runCli(['compile', '--example', 'quickstart', '--out', out], { env: { SOURCE_DATE_EPOCH: '999999999999' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('SOURCE_DATE_EPOCH 999999999999 is past 9999-12-31T23:59:59Z');
    expect(readdirSync(out)).toEqual([]);
  });
});

describe('--algorithm', () => {
  it('exits 2 (usage) for an unknown name, naming DIGEST_ALGORITHM_UNSUPPORTED, with nothing written', async () => {
    const out = mkdtempSync(join(tmpdir(), 'toolgate-alg-'));
    const r = await runCli(['compile', '--example', 'quickstart', '--algorithm', 'md5', '--out', out], { env: { SOURCE_DATE_EPOCH: '0' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('DIGEST_ALGORITHM_UNSUPPORTED');
    expect(readdirSync(out)).toEqual([]);
  });
});

describe('a multi-document YAML manifest', () => {
  it.each([
    ['agents: [a]\n---\nagents: [b]\n', 2, 1],
    ['# note\nagents: [a]\n...\nagents: [b]\n', 4, 1],
  ])('is refused at the second document: %j', async (text, line, col) => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-multidoc-'));
    writeFileSync(join(dir, 'g.yaml'), text);
    copyFileSync(new URL('../../../examples/quickstart/catalog.json', import.meta.url), join(dir, 'catalog.json'));
    const r = await runCli(['compile', '--manifest', join(dir, 'g.yaml'), '--catalog', join(dir, 'catalog.json'), '--out', join(dir, 'out')], { env: { SOURCE_DATE_EPOCH: '0' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`PARSE_ERROR at ${join(dir, 'g.yaml')}:${line}:${col}:`);
    expect(r.stderr).toContain('single document');
  });
});

describe('a number out of range in an input', () => {
  it.each([
    ['c.json', '{"servers": [{"name": "s", "tools": [{"name": "t",\n  "inputSchema": {"maximum": 1e400}}]}]}', '2:30'],
    ['c.yaml', 'servers:\n  - name: s\n    tools:\n      - name: t\n        inputSchema: {maximum: .inf}\n', '5:32'],
  ])('%s is refused at its file:line:col, not at <value>', async (name, text, lineCol) => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-inf-'));
    writeFileSync(join(dir, name), text);
    writeFileSync(join(dir, 'g.yaml'), 'agents: [a]\n');
    const r = await runCli(['compile', '--manifest', join(dir, 'g.yaml'), '--catalog', join(dir, name), '--out', join(dir, 'out')], { env: { SOURCE_DATE_EPOCH: '0' } });
    expect(r.code).toBe(1);
    // JSON is refused by the strict reader as it reads the number, YAML once the value is built (with its pointer)
    expect(r.stderr).toContain(`PARSE_ERROR at ${join(dir, name)}:${lineCol}`);
    expect(r.stderr).toMatch(name.endsWith('.json') ? /the number 1e400 is out of range/ : /\(\/servers\/0\/tools\/0\/inputSchema\/maximum\)/);
    expect(r.stderr).not.toContain('<value>');
  });
});
