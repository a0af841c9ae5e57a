import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validatorFor } from '../../../src/parse/schema.ts';

describe('connectome JSON schemas', () => {
  const golden = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'golden', 'connectome', 'fixtures', 'golden.json'), 'utf8')) as { edges: { provenance: string }[] };
  it('accepts the golden envelope as a connectome and refuses an unknown sign', () => {
    const v = validatorFor('connectome.schema.json');
    expect(v(golden)).toBe(true);
    expect(v({ ...golden, edges: [{ ...golden.edges[0], sign: 'unknown' }] })).toBe(false);
  });
  it('accepts a declared-only host graph and refuses observed edges there', () => {
    validatorFor('connectome.schema.json');
    const v = validatorFor('host-graph.schema.json');
    const declared = { ...golden, edges: golden.edges.filter((e) => e.provenance === 'declared') };
    expect(v(declared)).toBe(true);
    expect(v(golden)).toBe(false);
  });
});
