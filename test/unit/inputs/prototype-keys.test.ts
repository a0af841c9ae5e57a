/**
 * `__proto__` (and other Object.prototype names) are ordinary names in every input: as a policy
 * id, an agent id, a server, a tool and a JSON key, a valid estate compiles and the name reaches
 * the data document as a key of its own.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli.ts';

describe('prototype names as plain names', () => {
  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])('compiles an estate where %s names a policy, an agent, a server and a tool', async (name) => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-proto-'));
    writeFileSync(
      join(dir, 'g.yaml'),
      `agents: [${JSON.stringify(name)}]\npolicies:\n  - {id: ${JSON.stringify(name)}, effect: DENY}\ngrants:\n  - {agent: ${JSON.stringify(name)}, tool: ${JSON.stringify(`${name}::${name}`)}}\ngoverned_by:\n  ${JSON.stringify(`${name}::${name}`)}: [${JSON.stringify(name)}]\n`,
    );
    writeFileSync(join(dir, 'c.json'), JSON.stringify({ servers: [{ name, tools: [{ name, inputSchema: { type: 'object', properties: { [name]: { type: 'string' } } } }] }] }));
    const r = await runCli(['compile', '--manifest', join(dir, 'g.yaml'), '--catalog', join(dir, 'c.json'), '--out', join(dir, 'out')], { env: { SOURCE_DATE_EPOCH: '0' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('internal error');
    const data = JSON.parse(readFileSync(join(dir, 'out', 'data.json'), 'utf8')) as { toolgate: { policies: Record<string, unknown> } };
    expect(Object.keys(data.toolgate.policies)).toEqual([name]);
    const check = await runCli(['check-access', name, `${name}::${name}`, '--manifest', join(dir, 'g.yaml'), '--catalog', join(dir, 'c.json')]);
    expect(check.code, check.stderr).toBe(0);
    expect(check.json()).toMatchObject({ verdict: 'DENY' });
  });
});
