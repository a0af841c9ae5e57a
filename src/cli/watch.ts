/**
 * Watching input files for `compile --watch`: runs a callback after each save of any of them,
 * once per burst of writes, one run at a time, until SIGINT or SIGTERM (or an abort signal).
 *
 * The folders are watched, not the files: an editor that saves by writing a temp file and renaming
 * it over the original replaces the inode a file watch would hold, and later saves go unseen. A
 * burst (an editor writing in several steps, a rename pair) is one change after `debounceMs` of
 * quiet; a save during a run queues exactly one more run.
 */
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

export interface WatchOptions {
  readonly paths: readonly string[];
  /** Quiet time after the last event before the callback runs. */
  readonly debounceMs?: number;
  /** Stops the watch as SIGINT does (for callers that manage their own lifetime). */
  readonly signal?: AbortSignal;
  /** Run once the folders are watched, before any save's run: a save during it waits for it. */
  readonly first?: () => Promise<void>;
}

/**
 * Calls `onChange` with the saved paths (sorted) after each burst; resolves once stopped and the
 * run under way (if any) has finished. `onChange` reports its own failures: a watch outlives a
 * save that does not compile.
 */
export async function watchFiles(options: WatchOptions, onChange: (changed: readonly string[]) => Promise<void>): Promise<void> {
  const debounceMs = options.debounceMs ?? 150;
  const byFolder = new Map<string, Map<string, string>>();
  for (const p of options.paths) {
    const names = byFolder.get(dirname(p)) ?? new Map<string, string>();
    names.set(basename(p), p);
    byFolder.set(dirname(p), names);
  }
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  const runPending = (): void => {
    timer = undefined;
    if (stopped || running !== undefined || pending.size === 0) return;
    const changed = [...pending].sort();
    pending.clear();
    start(() => onChange(changed));
  };
  const start = (run: () => Promise<void>): void => {
    running = run().finally(() => {
      running = undefined;
      if (pending.size > 0 && timer === undefined) timer = setTimeout(runPending, debounceMs);
    });
  };

  const watchers: FSWatcher[] = [];
  for (const [folder, names] of byFolder) {
    watchers.push(
      watch(folder, (_event, name) => {
        const path = name === null ? undefined : names.get(String(name));
        if (path === undefined || stopped) return;
        pending.add(path);
        if (timer !== undefined) clearTimeout(timer);
        timer = setTimeout(runPending, debounceMs);
      }),
    );
  }

  if (options.first) start(options.first);

  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      options.signal?.removeEventListener('abort', stop);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    if (options.signal?.aborted) stop();
    else options.signal?.addEventListener('abort', stop, { once: true });
  });
  stopped = true;
  if (timer !== undefined) clearTimeout(timer);
  for (const w of watchers) w.close();
  await running;
}
