/**
 * Families declared with a loader (registry.ts registerFamilyLoader, what the bundled CLI's
 * builtins index does): listed by name before they load, loaded on the first lookup of one of
 * their names and only then, once.
 */
import { describe, it, expect } from 'vitest';
import '../../../../src/rego/builtins/index.ts';
import { builtinNames, lookupBuiltin, registerBuiltins, registerFamilyLoader } from '../../../../src/rego/builtins/registry.ts';

describe('builtin families loaded on first use', () => {
  it('are listed before they load, and load once, on the first lookup of one of their names', () => {
    let loads = 0;
    registerFamilyLoader(['test.lazy_a', 'test.lazy_b'], () => {
      loads++;
      registerBuiltins([
        { name: 'test.lazy_a', arity: 1, fn: ([x]) => x },
        { name: 'test.lazy_b', arity: 0, fn: () => 1 },
      ]);
    });
    expect(builtinNames()).toEqual(expect.arrayContaining(['test.lazy_a', 'test.lazy_b']));
    expect(lookupBuiltin('count')).toBeDefined();
    expect(loads).toBe(0);
    expect(lookupBuiltin('test.lazy_b')?.arity).toBe(0);
    expect(loads).toBe(1);
    expect(lookupBuiltin('test.lazy_a')?.fn?.(['x'], {} as never)).toBe('x');
    expect(loads).toBe(1);
    expect(builtinNames().filter((n) => n.startsWith('test.lazy_'))).toEqual(['test.lazy_a', 'test.lazy_b']);
  });

  it('leave a name their family does not register unknown, without loading it again', () => {
    let loads = 0;
    registerFamilyLoader(['test.declared_only'], () => {
      loads++;
    });
    expect(lookupBuiltin('test.declared_only')).toBeUndefined();
    expect(lookupBuiltin('test.declared_only')).toBeUndefined();
    expect(loads).toBe(1);
    expect(builtinNames()).not.toContain('test.declared_only');
  });

  it('do not take over a name already registered', () => {
    let loads = 0;
    registerFamilyLoader(['count'], () => {
      loads++;
    });
    expect(lookupBuiltin('count')?.arity).toBe(1);
    expect(loads).toBe(0);
  });
});
