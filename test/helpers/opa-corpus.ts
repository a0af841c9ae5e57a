/**
 * Where OPA's topdown conformance corpus is: the pinned OPA's Go module ships it
 * (`<go env GOMODCACHE>/github.com/open-policy-agent/opa@<version>/v1/test/cases/testdata/v1`, the
 * version from scripts/go-tools.txt). CI has it because .ci/run builds opa from that module.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export function pinnedOpaVersion(): string {
  const text = readFileSync(join(import.meta.dirname, '../../scripts/go-tools.txt'), 'utf8');
  const m = /^opa\s+github\.com\/open-policy-agent\/opa@(\S+)/m.exec(text);
  if (m === null) throw new Error('scripts/go-tools.txt names no opa module');
  return m[1] as string;
}

/** The corpus folder, or why it is missing. */
export function opaCorpusDir(): { dir: string } | { missing: string } {
  const version = pinnedOpaVersion();
  let modcache: string;
  try {
    modcache = execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8', timeout: 30_000 }).trim();
  } catch (e) {
    return { missing: `\`go env GOMODCACHE\` failed (${e instanceof Error ? e.message.split('\n')[0] : String(e)})` };
  }
  const dir = join(modcache, `github.com/open-policy-agent/opa@${version}`, 'v1/test/cases/testdata/v1');
  return existsSync(dir) ? { dir } : { missing: `${dir} is missing (build opa ${version} with scripts/install-go-tools.sh)` };
}
