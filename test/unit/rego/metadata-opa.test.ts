/**
 * METADATA annotations and rego.metadata.rule() / rego.metadata.chain() against the real `opa eval`:
 * package, rule, document and subpackages scopes, authors and related resources in both spellings,
 * custom fields, entrypoints, several modules, and calls from functions and comprehensions.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { compileModules, toJSON } from '../../../src/rego/index.ts';
import { describeWithOpa, runOpa } from '../../helpers/opa.ts';

const SETS: Record<string, Record<string, string>> = {
  'package and rule scopes': {
    'a.rego': `# METADATA
# title: The package
# description: pkg desc
package a.b

# METADATA
# title: My rule
# custom:
#   severity: high
#   tags: [x, y]
# authors:
#   - Jane <jane@example.com>
#   - name: Bob
#     email: bob@example.com
#   - Carol
# organizations: [acme]
# related_resources:
#   - https://example.com
#   - ref: https://x.org
#     description: xx
allow := rego.metadata.rule()

p := rego.metadata.chain()
r := rego.metadata.rule()

# METADATA
# description: with doc
# scope: document
q := rego.metadata.rule()
`,
  },
  'document and subpackages across modules': {
    'b.rego': `# METADATA
# scope: subpackages
# title: sub
package x

# METADATA
# description: doc level
# scope: document

# METADATA
# title: rule level
c := rego.metadata.chain()

# METADATA
# title: entry
# entrypoint: true
e := rego.metadata.chain()
`,
    'c.rego': `package x.y

# METADATA
# title: deep
d := rego.metadata.chain()

# METADATA
# title: f
f(v) := [v, rego.metadata.rule()]

g := f(1)

h := [t | some i in [1]; t := object.get(rego.metadata.rule(), "title", "none")]
`,
  },
};

function opaData(files: Record<string, string>): unknown {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-metadata-'));
  try {
    const args = ['eval', '--format', 'json'];
    for (const [name, text] of Object.entries(files)) {
      writeFileSync(join(dir, name), text);
      args.push('-d', join(dir, name));
    }
    const r = runOpa([...args, 'data']);
    return (JSON.parse(r.stdout) as { result: { expressions: { value: unknown }[] }[] }).result[0]!.expressions[0]!.value;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function ourData(files: Record<string, string>): unknown {
  const policy = compileModules(Object.entries(files).map(([name, text]) => ({ name, text })));
  return toJSON(policy.prepareQuery('x := data').evaluate()[0]!.bindings.get('x')!);
}

describeWithOpa('rego.metadata against opa eval', () => {
  for (const [name, files] of Object.entries(SETS)) {
    it(name, () => {
      expect(ourData(files)).toEqual(opaData(files));
    });
  }

  it('a query, outside any rule, has no metadata', () => {
    expect(compileModules([]).prepareQuery('x := rego.metadata.rule()').evaluate()).toEqual([]);
    expect(runOpa(['eval', '--format', 'json', 'x := rego.metadata.chain()']).stdout.trim()).toBe('{}');
  });
});
