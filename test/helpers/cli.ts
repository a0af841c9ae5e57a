/** Runs the CLI in-process with captured stdout/stderr, as a user would call it. */
import { main } from '../../src/cli/main.ts';

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  json<T = any>(): T;
}

export async function runCli(argv: string[], options: { cwd?: string; env?: Record<string, string | undefined>; stdin?: string } = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    cwd: options.cwd ?? process.cwd(),
    env: options.env ?? {},
    stdin: async () => options.stdin ?? '',
  });
  return { code, stdout, stderr, json: () => JSON.parse(stdout) };
}
