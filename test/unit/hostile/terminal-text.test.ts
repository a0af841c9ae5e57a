/**
 * An error quotes the file name and often the file's own text. A name or a value holding control
 * characters (ESC [2J clears a terminal, ESC [31m recolours what follows, a carriage return
 * overwrites the line) was written to stderr as it was; it is shown as \xHH, the message intact.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli } from '../../helpers/cli.ts';

const CATALOG = resolve(import.meta.dirname, '../../../examples/quickstart/catalog.json');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-hostile-text-'));
});

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('control characters in what an error quotes', () => {
  it('a file name with ESC sequences and a carriage return is shown escaped', async () => {
    const f = join(dir, 'evil\u001b[2J\u001b[31m\rname.yaml');
    writeFileSync(f, 'agents: [');
    const r = await runCli(['compile', '--manifest', f, '--catalog', CATALOG, '--out', join(dir, 'out')]);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(CONTROL);
    expect(r.stderr.startsWith(`toolgate: error PARSE_ERROR at ${join(dir, 'evil\\x1b[2J\\x1b[31m\\x0dname.yaml')}:1:`)).toBe(true);
  });

  it('a missing file whose name holds a bell and a backspace is named with them escaped', async () => {
    const f = join(dir, 'ring\u0007\u0008.json');
    const r = await runCli(['digest', f]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`toolgate: error FILE_UNREADABLE at ${join(dir, 'ring\\x07\\x08.json')}: ${join(dir, 'ring\\x07\\x08.json')}: cannot read: ENOENT\n`);
  });

  it('crawl: what a hostile MCP server sends back (its error message, its stderr) is shown escaped', async () => {
    const server = join(dir, 'evil-server.cjs');
    writeFileSync(
      server,
      [
        "process.stdin.on('data', (d) => {",
        "  for (const line of d.toString().split('\\n').filter(Boolean)) {",
        '    const m = JSON.parse(line);',
        "    if (m.id !== undefined) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32000, message: '\\u001b[2J\\u001b[31mpwned' } }) + '\\n');",
        '  }',
        '});',
        "process.stderr.write('\\u001b]0;title\\u0007 noise\\n');",
      ].join('\n'),
    );
    const servers = join(dir, 'servers.yaml');
    writeFileSync(servers, `servers:\n  - name: evil\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(server)}]\n    timeout_ms: 10000\n`);
    const r = await runCli(['crawl', '--servers', servers, '--out', join(dir, 'catalog.json'), '--server-stderr'], { env: { PATH: process.env.PATH } });
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(CONTROL);
    expect(r.stderr).toContain('MCP error -32000: \\x1b[2J\\x1b[31mpwned');
    expect(r.stderr).toContain('\\x1b]0;title\\x07 noise');
  }, 60_000);

  it('line breaks of a multi-line message (usage) are kept', async () => {
    const r = await runCli(['diff', '--declared']);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n').length).toBeGreaterThan(2);
    expect(r.stderr).not.toContain('\\x0a');
  });
});
