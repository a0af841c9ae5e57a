/** Watching files: a run given to go first holds back the saves made while it runs, which then run once after it. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, expect } from 'vitest';
import { watchFiles } from '../../../src/cli/watch.ts';

describe('watchFiles', () => {
  it('runs `first` before any save, and a save made during it once, after it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-watch-'));
    const path = join(dir, 'governance.yaml');
    writeFileSync(path, 'agents: []\n');
    const events: string[] = [];
    const stop = new AbortController();
    let release!: () => void;
    const firstDone = new Promise<void>((r) => (release = r));
    const saved = new Promise<void>((resolve) => {
      void watchFiles(
        {
          paths: [path],
          debounceMs: 20,
          signal: stop.signal,
          first: async () => {
            events.push('first started');
            await firstDone;
            events.push('first done');
          },
        },
        async (changed) => {
          events.push(`save ${changed.length}`);
          resolve();
        },
      );
    });
    try {
      // Two saves while `first` runs, well past the debounce: they wait for it, and run as one.
      writeFileSync(path, 'agents: [a]\n');
      await new Promise((r) => setTimeout(r, 120));
      writeFileSync(path, 'agents: [b]\n');
      await new Promise((r) => setTimeout(r, 120));
      expect(events).toEqual(['first started']);
      release();
      await saved;
      await new Promise((r) => setTimeout(r, 100));
      expect(events).toEqual(['first started', 'first done', 'save 1']);
    } finally {
      stop.abort();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
