/**
 * Estate strings in the HTML report: entity escaping and the script-safe JSON embedding, as
 * properties over hostile text, and end to end through `audit-report --format html` on estates
 * whose every name is hostile (nothing but our own tags may appear, and the data reads back).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embedJson, escapeHtml, withoutRoots } from '../../../src/audit/html-embed.ts';
import { runCli } from '../../helpers/cli.ts';

const HOSTILE = ['</script>', '<script>', '<!--', '-->', '"', "'", '&amp;', '<img src=x onerror=alert(1)>', '\u2028', '\u2029', '</style>', ']]>', '\\u003c', '<', '>', '&', '`', '${x}'];
const hostile = fc.array(fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ maxLength: 6 })), { minLength: 1, maxLength: 6 }).map((p) => p.join(''));

function unescapeHtml(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!);
}

describe('escapeHtml', () => {
  it('leaves no markup character and decodes back to the input', () => {
    fc.assert(
      fc.property(fc.oneof(hostile, fc.string({ unit: 'binary' })), (s) => {
        const out = escapeHtml(s);
        expect(out).not.toMatch(/[<>"']/);
        expect(unescapeHtml(out)).toBe(s);
      }),
      { numRuns: 500 },
    );
  });
});

describe('embedJson', () => {
  it('cannot close a script element or open a comment, and JSON.parse gives the value back', () => {
    fc.assert(
      fc.property(fc.jsonValue(), hostile, (v, s) => {
        const value = { v, s, [s]: [s] };
        const out = embedJson(value);
        expect(out).not.toMatch(/[<>&\u2028\u2029]/);
        expect(JSON.parse(out)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 500 },
    );
  });
});

describe('withoutRoots', () => {
  it('removes local folders from every string and key, longest first', () => {
    const v = { at: '/home/u/estate/governance.yaml:3:4', list: ['/home/u/x', 'read at /home/u/estate/f:1:2'], ['/home/u/estate/k']: 1 };
    expect(withoutRoots(v, ['/home/u/estate', '/home/u'])).toEqual({ at: 'governance.yaml:3:4', list: ['x', 'read at f:1:2'], k: 1 });
    expect(withoutRoots(v, ['/'])).toEqual(v);
  });
});

/** Writes a one-agent estate where every name is `s`-derived, and returns its HTML report. */
async function hostileReport(s: string, dir: string): Promise<string> {
  const server = `s${s}`.replace(/::/g, ':').replace(/[\u0000-\u001f]/g, '');
  const tool = `t${s}`.replace(/::/g, ':').replace(/[\u0000-\u001f]/g, '');
  const key = `${server}::${tool}`;
  const manifest = {
    agents: [{ id: `a${s}` }, { id: 'plain' }],
    policies: [{ id: `p${s}`, effect: 'DENY' }],
    grants: [{ agent: `a${s}`, tool: key, provenance: { source: 'operator_asserted', confidence: 'high', evidence: `e${s}` } }],
    data_access: [{ tool: key, resource: `res://r${s}`, mode: 'READS' }],
    governed_by: { [`res://r${s}`]: [`p${s}`] },
  };
  const catalog = { kind: 'toolgate.catalog', schema_version: 1, servers: [{ name: server, tools: [{ name: tool, inputSchema: { type: 'object' } }] }] };
  writeFileSync(join(dir, 'governance.yaml'), JSON.stringify(manifest));
  writeFileSync(join(dir, 'catalog.json'), JSON.stringify(catalog));
  const r = await runCli(['audit-report', '--format', 'html', '--manifest', join(dir, 'governance.yaml'), '--catalog', join(dir, 'catalog.json')], { cwd: dir });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

// Every tag the report itself writes (its own markup and Graphviz's SVG).
const OUR_TAGS = new Set(['!DOCTYPE', 'html', 'head', 'meta', 'title', 'style', 'body', 'h1', 'h2', 'h3', 'p', 'br', 'code', 'strong', 'noscript', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'div', 'label', 'input', 'select', 'option', 'span', 'i', 'button', 'figure', 'svg', 'g', 'title', 'path', 'polygon', 'polyline', 'ellipse', 'text', 'rect', 'details', 'summary', 'ul', 'li', 'script']);

describe('audit-report --format html on an estate of hostile names', () => {
  it('writes only its own tags, exactly its two scripts, and data that reads back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-html-hostile-'));
    await fc.assert(
      fc.asyncProperty(hostile, async (s) => {
        const html = await hostileReport(s, dir);
        const tags = new Set([...html.matchAll(/<\/?(!?[A-Za-z][A-Za-z0-9]*)/g)].map((m) => m[1]!));
        expect([...tags].filter((t) => !OUR_TAGS.has(t))).toEqual([]);
        expect(html.match(/<script/gi)).toHaveLength(2);
        expect(html.match(/<\/script/gi)).toHaveLength(2);
        expect(html).not.toContain('<!--');
        expect(html).not.toContain(dir);
        const json = /<script type="application\/json" id="report-data">([^<]*)<\/script>/.exec(html);
        expect(json).not.toBeNull();
        const data = JSON.parse(json![1]!) as { agents: { id: string }[]; policies: [string, string][] };
        expect(data.agents.map((a) => a.id)).toContain(`a${s}`);
        expect(data.policies[0]![0]).toBe(`p${s}`);
      }),
      { numRuns: 12 },
    );
  }, 120_000);

  it('is the same bytes for the same inputs', async () => {
    const a = await runCli(['audit-report', '--example', 'fleet', '--format', 'html']);
    const b = await runCli(['audit-report', '--example', 'fleet', '--format', 'html']);
    expect(a.code).toBe(0);
    expect(b.stdout).toBe(a.stdout);
  });
});

describe('audit-report --format html --bundle', () => {
  it('names the bundle revision and profile the gateway decisions are for', async () => {
    const out = mkdtempSync(join(tmpdir(), 'tg-html-bundle-'));
    const c = await runCli(['compile', '--example', 'quickstart', '--profile', 'review', '--out', out], { env: { SOURCE_DATE_EPOCH: '0' } });
    expect(c.code, c.stderr).toBe(0);
    const manifest = JSON.parse(readFileSync(join(out, 'policy-bundle.json'), 'utf8')) as unknown;
    expect(manifest).toBeTruthy();
    const r = await runCli(['audit-report', '--example', 'quickstart', '--format', 'html', '--bundle', join(out, 'bundle.tar.gz')]);
    expect(r.code, r.stderr).toBe(0);
    const data = JSON.parse(/id="report-data">([^<]*)</.exec(r.stdout)![1]!) as { profile: string; revision: string };
    expect(data.profile).toBe('review');
    expect(data.revision).toMatch(/^[0-9a-f]{64}$/);
    expect(r.stdout).toContain(`bundle revision <code>${data.revision}</code>`);
    expect((await runCli(['audit-report', '--example', 'quickstart', '--format', 'html', '--bundle', join(out, 'bundle.tar.gz'), '--profile', 'strict'])).code).toBe(2);
    expect((await runCli(['audit-report', '--example', 'quickstart', '--profile', 'strict'])).code).toBe(2);
  });
});
