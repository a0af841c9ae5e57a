import { describe, expect, it } from 'vitest';
import { mkdtempSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileKeyedCache, RACY_MS } from '../../../src/cli/estate-cache.ts';

const HOUR_AGO = new Date(Date.now() - 3600_000);

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-cache-test-'));
  const a = join(dir, 'governance.yaml');
  const b = join(dir, 'catalog.json');
  const write = (p: string, text: string, old = true) => {
    writeFileSync(p, text);
    if (old) utimesSync(p, HOUR_AGO, HOUR_AGO);
  };
  write(a, 'agents: []\n');
  write(b, '{"servers":[]}');
  let n = 0;
  const cache = new FileKeyedCache<{ n: number }>();
  const get = () => cache.get([a, b], () => ({ n: ++n }));
  return { dir, a, b, write, cache, get };
}

describe('FileKeyedCache', () => {
  it('loads once while the files are unchanged', () => {
    const { get, cache } = setup();
    expect(get().n).toBe(1);
    expect(get().n).toBe(1);
    expect(get().n).toBe(1);
    expect(cache.stats()).toEqual({ gets: 3, loads: 1 });
  });

  it('loads again after an edit in place, a same-size rewrite with the mtime put back, and an atomic replace', () => {
    const { a, b, dir, write, get } = setup();
    expect(get().n).toBe(1);
    write(b, '{"servers":[{"name":"s"}]}');
    expect(get().n).toBe(2);
    // Same size, same (restored) mtime, same inode: only the ctime tells.
    write(b, '{"servers":[{"name":"t"}]}');
    expect(get().n).toBe(3);
    expect(get().n).toBe(3);
    const tmp = join(dir, '.governance.yaml.tmp');
    write(tmp, 'agents: []\n');
    renameSync(tmp, a);
    expect(get().n).toBe(4);
    expect(get().n).toBe(4);
  });

  it('keeps nothing while a file is missing, and loads once it is back', () => {
    const { b, write, cache } = setup();
    let n = 0;
    const get = () =>
      cache.get([b], () => {
        n++;
        return { n };
      });
    rmSync(b);
    expect(get().n).toBe(1);
    expect(get().n).toBe(2);
    write(b, '{"servers":[]}');
    expect(get().n).toBe(3);
    expect(get().n).toBe(3);
  });

  it('does not keep an entry whose files were modified less than RACY_MS before it looked', () => {
    const { a, b, write } = setup();
    write(b, '{"servers":[]}', false);
    let now = Date.now();
    const cache = new FileKeyedCache<{ n: number }>(() => now);
    let n = 0;
    const get = () => cache.get([a, b], () => ({ n: ++n }));
    expect(get().n).toBe(1);
    expect(get().n).toBe(2);
    now += RACY_MS + 1000;
    expect(get().n).toBe(3);
    expect(get().n).toBe(3);
  });

  it('keeps nothing when the load throws', () => {
    const { a, b } = setup();
    const cache = new FileKeyedCache<number>();
    let n = 0;
    const failing = () => {
      n++;
      throw new Error('refused');
    };
    expect(() => cache.get([a, b], failing)).toThrow('refused');
    expect(() => cache.get([a, b], failing)).toThrow('refused');
    expect(n).toBe(2);
    expect(cache.get([a, b], () => 7)).toBe(7);
    expect(cache.get([a, b], () => 8)).toBe(7);
  });
});
