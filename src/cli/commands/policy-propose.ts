/**
 * `toolgate policy propose GOVERNANCE OBSERVED [--catalog C] [--out FILE] [--unverified-provenance]`:
 * proposed grants and removals from observed use (an observation window or OPA decision logs), as
 * a reviewable patch. The manifest is never edited: `--out` writes a patched copy elsewhere, and
 * only after it validates as a manifest.
 */
import { resolve } from 'node:path';
import { stringify } from 'yaml';
import { digestHex } from '../../canonical/digest.ts';
import { jsonFileBytes } from '../../compile/compile.ts';
import { governanceDigest } from '../../governance/input-digests.ts';
import { ToolgateError } from '../../errors.ts';
import { parseManifest } from '../../manifest/parse.ts';
import { patchedManifest, propose, readObservations } from '../../review/propose.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import type { CliIo, Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { loadEstate, locateEstate } from '../estate-input.ts';
import { readTextFile, writeFilesAtomic } from '../fs-io.ts';

const usage = `usage: toolgate policy propose GOVERNANCE OBSERVED [--catalog C] [--out FILE] [--unverified-provenance]
Proposes grants (observed calls the agent is not granted, whose grant would be eligible under the
strict profile) and removals (granted pairs a window reports with zero calls), and lists what it
would not propose: conflicts (DENY reach), not_grant_shaped (unknown, ambiguous, drifted or
unmapped tools) and insufficient_evidence (unknown agents). Nothing is applied.
OBSERVED: JSON lines: the peer's observation window (one envelope, then rows) or OPA decision logs.
  --catalog C               the catalog (default: the one toolgate.yaml names)
  --out FILE                also write the patched manifest (YAML) there, after it validates;
                            never the GOVERNANCE file itself
  --unverified-provenance   accept observations without a complete envelope, labelled unverified
Exit 0 when the proposal is printed (with zero additions too); 1 when an input is refused (a
window recorded against other governance, incomplete provenance without the flag) or the patched
manifest does not validate; 2 on bad usage.`;

export const policyProposeCommand: Command = {
  name: 'policy propose',
  summary: 'proposed grants and removals from observed use, as a reviewable manifest patch (never applied)',
  usage,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs(args, { catalog: { type: 'string' }, out: { type: 'string' }, 'unverified-provenance': { type: 'boolean' }, strict: { type: 'boolean' } }, usage);
    if (positionals.length !== 2) usageError('expected GOVERNANCE and OBSERVED', usage);
    const [gov, observed] = positionals.map((p) => resolve(io.cwd, p)) as [string, string];
    let catalog = values.catalog;
    if (catalog === undefined) {
      const fromConfig = locateEstate({}, io);
      catalog = fromConfig.catalogPath;
    }
    const estate = loadEstate(locateEstate({ manifest: gov, catalog, strict: values.strict }, io), io);
    const obs = readObservations(observed, readTextFile(observed));
    const proposal = propose(estate, governanceDigest(estate.manifest.raw), obs, { unverifiedProvenance: values['unverified-provenance'] ?? false, source: observed });
    let patched: { out: string; bytes: number; artifact_digest: string } | undefined;
    if (values.out !== undefined) {
      const out = resolve(io.cwd, values.out);
      const text = `# Proposed by toolgate policy propose from ${observed}; review before use.\n${stringify(patchedManifest(estate.manifest.raw, estate, proposal), { lineWidth: 0, aliasDuplicateObjects: false })}`;
      try {
        parseManifest(out, text);
      } catch (e) {
        throw new ToolgateError('MANIFEST_INVALID', `the patched manifest does not validate, so it was not written: ${(e as Error).message}`, { cause: e });
      }
      const bytes = new TextEncoder().encode(text);
      writeFilesAtomic([{ path: out, bytes, flag: '--out' }]);
      patched = { out, bytes: bytes.length, artifact_digest: `sha256:${digestHex(bytes)}` };
    }
    io.stdout(new TextDecoder().decode(jsonFileBytes(patched ? { ...proposal, patched_manifest: patched } : proposal)));
    return EXIT.OK;
  },
};
