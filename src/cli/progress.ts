/**
 * Progress for long runs, on a terminal only: one line on stderr (`toolgate crawl: 3/7 servers 4.2s`)
 * redrawn in place, shown once a run has taken a second, and erased before any other stderr text
 * and at the end. A command opts in by calling `io.progress?.report(...)` at its phases; where
 * stderr is not a TTY (a pipe, a file, CI logs, tests) there is no reporter at all, so redirected
 * output is byte-for-byte what it was.
 */
import type { CliIo, ProgressReporter } from './command.ts';

export interface ProgressOptions {
  /** Raw terminal output (stderr). */
  readonly write: (text: string) => void;
  /** Milliseconds, monotonic. */
  readonly now: () => number;
  /** Terminal width: the line is cut to fit, so it never wraps (a wrapped line cannot be redrawn). */
  readonly columns?: number;
  /** Quiet time before anything is drawn (default 1000 ms): short runs show nothing. */
  readonly delayMs?: number;
  /** Redraw period while the event loop is free, so the elapsed time moves (default 250 ms); 0 for none. */
  readonly intervalMs?: number;
}

export interface TerminalProgress extends ProgressReporter {
  /** Erases the line if one is drawn (before other stderr text). */
  clear(): void;
}

const ERASE = '\r\x1b[K';

/**
 * A reporter drawing `toolgate TITLE: PHASE (DONE/TOTAL) ELAPSEDs`.
 *
 * @example
 * const p = createProgress('crawl', { write: (t) => process.stderr.write(t), now: () => performance.now() });
 * p.report('servers', 3, 7); // nothing yet; after a second: "toolgate crawl: servers 3/7 1.2s"
 * p.end();
 */
export function createProgress(title: string, options: ProgressOptions): TerminalProgress {
  const start = options.now();
  const delay = options.delayMs ?? 1000;
  // A width of 0 is a terminal that does not say (a pty under script(1)): take the usual 80.
  const width = Math.max(20, (options.columns || 80) - 1);
  let phase: string | undefined;
  let drawn = false;
  let ended = false;

  const draw = (): void => {
    if (ended || phase === undefined) return;
    const elapsed = options.now() - start;
    if (elapsed < delay) return;
    const line = `toolgate ${title}: ${phase} ${(elapsed / 1000).toFixed(1)}s`;
    options.write(`\r${line.length > width ? `${line.slice(0, width - 1)}…` : line}\x1b[K`);
    drawn = true;
  };
  const timer = options.intervalMs === 0 ? undefined : setInterval(draw, options.intervalMs ?? 250);
  // The timer never keeps a finished command's process alive.
  timer?.unref();

  return {
    report(name: string, done?: number, total?: number): void {
      phase = done === undefined ? name : `${name} ${done}${total === undefined ? '' : `/${total}`}`;
      draw();
    },
    clear(): void {
      if (!drawn) return;
      options.write(ERASE);
      drawn = false;
    },
    end(): void {
      if (timer) clearInterval(timer);
      if (drawn) options.write(ERASE);
      drawn = false;
      ended = true;
    },
  };
}

/**
 * The io a command runs with: unchanged unless stderr is a terminal (`io.stderrTTY`, and TERM is not
 * `dumb`); then with a reporter, and a stderr that erases the progress line before writing.
 */
export function withProgress(io: CliIo, title: string): CliIo {
  if (io.stderrTTY === undefined || io.env.TERM === 'dumb') return io;
  const progress = createProgress(title, { write: io.stderr, now: () => performance.now(), columns: io.stderrTTY.columns });
  return {
    ...io,
    stderr: (text) => {
      progress.clear();
      io.stderr(text);
    },
    progress,
  };
}
