/** --out never overwrites what toolgate did not write: refusals are OUTPUT_NOT_ARTIFACT and leave the path untouched. */
import { describe, it, expect } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { AUDIT_REPORT_OUTPUT, CATALOG_OUTPUT, assertReplaceableOutput } from '../../../src/cli/output-guard.ts';
import { runCli } from '../../helpers/cli.ts';

const fresh = () => mkdtempSync(join(tmpdir(), 'toolgate-out-guard-'));
const Q = ['--example', 'quickstart'];

describe('assertReplaceableOutput', () => {
  it('recognises a large JSON report whose kind comes after a long member, and nothing with the marker only in its middle', () => {
    const d = fresh();
    const big = join(d, 'report.json');
    const filler = 'x'.repeat(200_000);
    writeFileSync(big, `{"audits":[${JSON.stringify(filler)}],"kind":"toolgate.audit-report","status":"pass"}`);
    expect(() => assertReplaceableOutput(big, AUDIT_REPORT_OUTPUT)).not.toThrow();
    const middle = join(d, 'other.json');
    writeFileSync(middle, `{"a":${JSON.stringify(filler)},"kind":"toolgate.audit-report","b":${JSON.stringify(filler)}}`);
    expect(() => assertReplaceableOutput(middle, AUDIT_REPORT_OUTPUT)).toThrow(expect.objectContaining({ code: 'OUTPUT_NOT_ARTIFACT' }));
  });

  it('lets a missing path, an empty file and a dangling link through', () => {
    const d = fresh();
    writeFileSync(join(d, 'empty.json'), '');
    symlinkSync(join(d, 'nowhere'), join(d, 'dangling'));
    for (const p of ['missing.json', 'empty.json', 'dangling']) expect(() => assertReplaceableOutput(join(d, p), CATALOG_OUTPUT)).not.toThrow();
  });

  it('refuses a folder, and any file that is not an earlier output of the kind, whatever its bytes', () => {
    const d = fresh();
    mkdirSync(join(d, 'folder'));
    expect(() => assertReplaceableOutput(join(d, 'folder'), CATALOG_OUTPUT)).toThrow(expect.objectContaining({ code: 'OUTPUT_NOT_ARTIFACT' }));
    fc.assert(
      fc.property(fc.string({ minLength: 1 }).filter((s) => !s.includes('toolgate')), (text) => {
        const p = join(d, 'f.txt');
        writeFileSync(p, text);
        expect(() => assertReplaceableOutput(p, CATALOG_OUTPUT)).toThrow(expect.objectContaining({ code: 'OUTPUT_NOT_ARTIFACT' }));
        expect(readFileSync(p, 'utf8')).toBe(text);
      }),
      { numRuns: 100 },
    );
  });

  it('says what it expected there', () => {
    const p = join(fresh(), 'catalog.json');
    writeFileSync(p, JSON.stringify({ servers: [] }));
    expect(() => assertReplaceableOutput(p, CATALOG_OUTPUT)).toThrow(/toolgate replaces only a catalog written by toolgate crawl \(JSON with "kind": "toolgate.catalog"\)/);
  });
});

describe('--out of the commands', () => {
  it('audit-report replaces an earlier report in any of its formats, and refuses anything else untouched', async () => {
    const d = fresh();
    const out = join(d, 'report');
    for (const format of ['json', 'markdown', 'html', 'json']) {
      const r = await runCli(['audit-report', ...Q, '--format', format, '--out', out]);
      expect(r.code, r.stderr).toBe(0);
    }
    writeFileSync(join(d, 'notes.md'), '# my notes\n');
    const refused = await runCli(['audit-report', ...Q, '--out', join(d, 'notes.md')]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^toolgate: error OUTPUT_NOT_ARTIFACT at .*notes\.md: refusing to overwrite/m);
    expect(refused.stderr).toContain('an earlier toolgate audit report');
    expect(refused.stdout).toBe('');
    expect(readFileSync(join(d, 'notes.md'), 'utf8')).toBe('# my notes\n');
  });

  it('crawl refuses a hand-written catalog before starting any server', async () => {
    const d = fresh();
    writeFileSync(join(d, 'servers.yaml'), `servers:\n  - {name: never, command: ${JSON.stringify(join(d, 'started'))}}\n`);
    const catalog = JSON.stringify({ servers: [{ name: 'by-hand', tools: [{ name: 't' }] }] });
    writeFileSync(join(d, 'catalog.json'), catalog);
    const r = await runCli(['crawl', '--servers', 'servers.yaml', '--out', 'catalog.json'], { cwd: d });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('OUTPUT_NOT_ARTIFACT');
    expect(r.stderr).not.toContain('crawl: never');
    expect(readFileSync(join(d, 'catalog.json'), 'utf8')).toBe(catalog);
  });

  it('compile refuses a file at --out, saying it wants a folder, and leaves it as it was', async () => {
    const d = fresh();
    writeFileSync(join(d, 'out'), 'precious\n');
    const r = await runCli(['compile', ...Q, '--out', join(d, 'out')], { env: { SOURCE_DATE_EPOCH: '0' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/OUTPUT_NOT_ARTIFACT.*it is a file, not a folder; compile --out takes a new or empty folder/);
    expect(readFileSync(join(d, 'out'), 'utf8')).toBe('precious\n');
    expect(readdirSync(d)).toEqual(['out']);
  });
});
