import { describe, expect, it } from 'vitest';
import { parseServersFile, resolveLaunch } from '../../../src/crawl/servers.ts';
import { ToolgateError } from '../../../src/errors.ts';

function refusal(text: string): ToolgateError {
  try {
    parseServersFile('servers.yaml', text);
  } catch (e) {
    if (e instanceof ToolgateError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

const ctx = { serversDir: '/fleet', crawlTmpDir: '/tmp/crawl-1', env: { TOKEN: 'tok-123456', HOME: '/root' } };

describe('parseServersFile', () => {
  it('accepts stdio and http entries', () => {
    const f = parseServersFile('servers.yaml', 'servers:\n  - {name: a, command: x}\n  - {name: b, url: "https://mcp.example/mcp", headers: {Authorization: {env: TOKEN}}}\n');
    expect(f.servers.map((s) => s.name)).toEqual(['a', 'b']);
  });

  it.each([
    ['an unknown key', 'servers:\n  - name: a\n    command: x\n    comand: y\n', 'CONFIG_INVALID', 4],
    ['a stdio entry without command', 'servers:\n  - name: a\n    args: []\n', 'CONFIG_INVALID', 2],
    ['an http entry with a literal header value', 'servers:\n  - name: a\n    url: http://h/mcp\n    headers: {Authorization: "Bearer x"}\n', 'CONFIG_INVALID', 4],
    ['a command on an http entry', 'servers:\n  - name: a\n    transport: http\n    url: http://h/mcp\n    command: x\n', 'CONFIG_INVALID', 5],
    ['an unknown placeholder', 'servers:\n  - name: a\n    command: x\n    args: ["${HOME}/y"]\n', 'CONFIG_INVALID', 4],
    ['a name with ::', 'servers:\n  - name: "a::b"\n    command: x\n', 'CONFIG_INVALID', 2],
    ['a zero timeout', 'servers:\n  - name: a\n    command: x\n    timeout_ms: 0\n', 'CONFIG_INVALID', 4],
    ['a duplicated name', 'servers:\n  - {name: a, command: x}\n  - {name: a, command: y}\n', 'DUPLICATE_ENTRY', 3],
  ])('refuses %s with its location', (_what, text, code, line) => {
    const e = refusal(text);
    expect(e.code).toBe(code);
    expect(e.at[0]).toMatchObject({ file: 'servers.yaml', line });
  });
});

describe('resolveLaunch', () => {
  it('expands the placeholders and resolves paths from the servers folder', () => {
    const f = parseServersFile('s.yaml', 'servers:\n  - {name: a, command: ../bin/srv, args: ["${CRAWL_TMPDIR}", "${SERVERS_DIR}/data", "$HOME"], env: {A: "${CRAWL_TMPDIR}/m", B: {env: TOKEN}}}\n');
    const l = resolveLaunch(f.servers[0]!, ctx);
    expect(l).toMatchObject({ kind: 'stdio', command: '/bin/srv', cwd: '/fleet', args: ['/tmp/crawl-1', '/fleet/data', '$HOME'], env: { A: '/tmp/crawl-1/m', B: 'tok-123456' } });
    expect((l as { secrets: readonly string[] }).secrets).toContain('tok-123456');
  });

  it('keeps bare command names for PATH lookup and honours a relative cwd', () => {
    const f = parseServersFile('s.yaml', 'servers:\n  - {name: a, command: node, cwd: sub, args: [x]}\n  - {name: b, command: ./srv, cwd: /abs}\n');
    expect(resolveLaunch(f.servers[0]!, ctx)).toMatchObject({ command: 'node', cwd: '/fleet/sub' });
    expect(resolveLaunch(f.servers[1]!, ctx)).toMatchObject({ command: '/abs/srv', cwd: '/abs' });
  });

  it('takes header values from the environment and names a missing variable without a value', () => {
    const f = parseServersFile('s.yaml', 'servers:\n  - {name: a, url: "https://h/mcp?key=qk-99999", headers: {Authorization: {env: TOKEN}}}\n  - {name: b, url: "https://h/mcp", headers: {X-Key: {env: NOPE}}}\n');
    const a = resolveLaunch(f.servers[0]!, ctx);
    expect(a).toMatchObject({ kind: 'http', headers: { Authorization: 'tok-123456' } });
    expect((a as { secrets: readonly string[] }).secrets).toEqual(['tok-123456', 'qk-99999']);
    expect(resolveLaunch(f.servers[1]!, ctx)).toEqual({ error: 'header X-Key: environment variable NOPE is not set' });
  });
});
