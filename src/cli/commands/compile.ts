/** `toolgate compile`: the main job — estate in, policy bundle, OPA data document and OPA bundle out. */
import { existsSync } from 'node:fs';
import { enforcementRego } from '../enforcement-rego.ts';
import { join, resolve } from 'node:path';
import type { CompiledArtifact, EstateCompileOptions, RegoModuleFile } from '../../compile/compile.ts';
import { connectomeArtifacts, keptConnectomeArtifacts, type ConnectomeArtifacts } from '../../compile/connectome-artifacts.ts';
import { ArtifactBuffers } from '../../compile/incremental/artifact-buffers.ts';
import { artifactBytes, manifestPieceCache, type CompileState } from '../../compile/incremental/compile-state.ts';
import { compileDataJson, recompileEstate, withStateFiles } from '../../emit/compile-run.ts';
import type { RecompileSummary } from '../../compile/incremental/summary.ts';
import { algorithmOption, commandSigner, readGraphFile } from '../connectome-cli.ts';
import type { Graph } from '../../connectome/index.ts';
import type { PreviousState } from '../../compile/graph-state.ts';
import type { Estate } from '../../governance/estate.ts';
import { reconcile } from '../../governance/reconcile.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import { createdAtFromEnv, createdAtPinned } from '../clock.ts';
import type { CliIo, Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { ESTATE_OPTIONS, ESTATE_USAGE, loadEstate, locateEstate } from '../estate-input.ts';
import { readTextFile } from '../fs-io.ts';
import { commitArtifactSet, recoverArtifactSet, testPauseFromEnv } from '../artifact-set.ts';
import { printJson } from '../output.ts';
import { profileOption } from '../selector-args.ts';
import { COMPILE_EXTRA_OPTIONS, COMPILE_EXTRA_USAGE, bundleSignerFromOptions, signsFromOptions } from '../compile-extras.ts';
import { DELTA_OPTIONS, DELTA_USAGE, withDeltaFrom } from '../compile-delta.ts';
import { INCREMENTAL_OPTIONS, INCREMENTAL_USAGE, keptConnectomeFiles, keptFile, previousFromState, readKeptState, rememberCommitted, summaryText } from '../compile-incremental.ts';
import { reportError } from '../main.ts';
import { watchFiles } from '../watch.ts';
import { rehearseSave } from '../watch-rehearsal.ts';
import { ConnectomeMemo, InputMemo } from '../watch-memo.ts';

const usage = `usage: toolgate compile [estate] --out DIR [--profile strict|review|explore] [--format toolgate|toolgraph-v1 --agent A] [--incremental | --watch]
                        [--host-graph FILE] [--algorithm sha256|sha384|sha512]
                        [--signer CMD] [--scheme NAME] [--key-id ID]
Writes the set all or nothing (DIR becomes a link to a generation folder beside it): DIR/policy-bundle.json, DIR/data.json, DIR/bundle.tar.gz,
DIR/connectome.json (canonical bytes) with connectome.digest.json, connectome.dot, connectome.graphml,
and DIR/SHA256SUMS.
  --host-graph    a host connectome fragment (schema_version 3 or 4) merged into the declared graph
  --algorithm     digest of the connectome bytes (default sha256)
  --signer CMD    CMD gets the connectome bytes on stdin and prints a signature for the envelope;
  --scheme/--key-id  signature metadata copied into the envelope as asserted (null when absent)
${COMPILE_EXTRA_USAGE}
${DELTA_USAGE}
${INCREMENTAL_USAGE}
${ESTATE_USAGE}`;

const options = {
  ...ESTATE_OPTIONS,
  out: { type: 'string' },
  profile: { type: 'string' },
  format: { type: 'string' },
  agent: { type: 'string' },
  'host-graph': { type: 'string' },
  algorithm: { type: 'string' },
  signer: { type: 'string' },
  scheme: { type: 'string' },
  'key-id': { type: 'string' },
  ...COMPILE_EXTRA_OPTIONS,
  ...DELTA_OPTIONS,
  ...INCREMENTAL_OPTIONS,
} as const;

// Re-exported for the commands and tests that take the shipped Rego from here.
export { enforcementRego };

/** The state recorded in a previous policy bundle in the output folder, if it is readable. */
function previousState(dir: string, io: CliIo): (PreviousState & { tools: string[] }) | undefined {
  const path = join(dir, 'policy-bundle.json');
  if (!existsSync(path)) return undefined;
  try {
    const v = JSON.parse(readTextFile(path)) as Record<string, unknown>;
    const gs = v.graph_state as { instance_id?: unknown; generation?: unknown } | undefined;
    if (typeof gs?.instance_id !== 'string' || !Number.isSafeInteger(gs.generation)) throw new Error('no graph_state');
    return {
      graph_state: { instance_id: gs.instance_id, generation: gs.generation as number },
      digests: {
        governance_digest: String(v.governance_digest),
        catalog_digest: String(v.catalog_digest),
        connectome_digest: typeof v.connectome_digest === 'string' ? v.connectome_digest : null,
      },
      ...(typeof v.created_at === 'string' ? { created_at: v.created_at } : {}),
      tools: Array.isArray(v.tools) ? (v.tools as { tool_key?: unknown }[]).map((t) => t.tool_key).filter((k): k is string => typeof k === 'string') : [],
    };
  } catch {
    io.stderr(`toolgate: warning: ${path} is not a readable policy bundle; starting graph_state afresh\n`);
    return undefined;
  }
}

export const compileCommand: Command = {
  name: 'compile',
  summary: 'compile the estate into policy-bundle.json, data.json, bundle.tar.gz and SHA256SUMS',
  usage,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs(args, options, usage);
    if (positionals.length > 0) usageError(`unexpected argument ${JSON.stringify(positionals[0])}`, usage);
    const source = locateEstate(values, io);
    const outArg = values.out ?? (source.config?.out as string | undefined);
    if (outArg === undefined) usageError('--out DIR is required', usage);
    const profile = profileOption(values.profile ?? (source.config?.profile as string | undefined), usage);
    const format = values.format ?? 'toolgate';
    if (format !== 'toolgate' && format !== 'toolgraph-v1') usageError(`--format must be toolgate or toolgraph-v1, got ${JSON.stringify(format)}`, usage);
    if (format === 'toolgraph-v1' && values.agent === undefined) usageError('--format toolgraph-v1 needs --agent A', usage);
    if (format === 'toolgate' && values.agent !== undefined) usageError('--agent applies only to --format toolgraph-v1', usage);
    const createdAt = createdAtFromEnv(io.env);
    const algorithm = algorithmOption(values.algorithm);
    const keepState = values.incremental === true || values.watch === true;
    // A watch keeps its state in memory between saves and writes its files only when it stops.
    const stateInFiles = keepState && values.watch !== true;
    const outDir = resolve(io.cwd, outArg);
    const pause = testPauseFromEnv(io.env);
    const signBundle = bundleSignerFromOptions(io, values, usage);
    const enforcement = enforcementRego();
    // A watch parses again only the files whose text changed (the others are the objects it read
    // before), and builds the connectome (which reads the catalog and the host graph only) again
    // only when what it reads changed.
    const inputs = values.watch === true ? new InputMemo() : undefined;
    const connectomeMemo = new ConnectomeMemo();
    // A watch writes each save's documents into the memory of the set it replaced.
    const buffers = values.watch === true ? new ArtifactBuffers() : undefined;

    /** One compile into --out, from `kept` (the state a watch holds) or what --out holds; the set it wrote, with its state. */
    const compileOnce = async (kept: CompileState | undefined): Promise<{ state: CompileState; summary: RecompileSummary; files: readonly CompiledArtifact[]; estate: Estate; options: EstateCompileOptions }> => {
      io.progress?.report('compiling');
      // Read before the inputs, which it helps parse (only the manifest pieces whose text changed).
      const read = keepState && kept === undefined ? readKeptState(outDir, io) : undefined;
      const start = keepState ? (kept ?? (read && 'state' in read ? read.state : undefined)) : undefined;
      const estate = loadEstate(source, io, { strictDrift: values['strict-drift'] ?? false, ...(keepState ? { manifestPieces: manifestPieceCache(start) } : {}), ...(inputs ? { inputs } : {}) });
      // A run killed earlier may have left --out mid-replacement (restored here) and temp folders beside it.
      recoverArtifactSet(outDir, pause ? { pause } : {});
      const recorded = (start && previousFromState(outDir, start)) ?? previousState(outDir, io);
      // SOURCE_DATE_EPOCH wins: the previous artifact's created_at is kept only when it is not set.
      const previous = recorded && createdAtPinned(io.env) ? (({ created_at: _, ...rest }) => rest)(recorded) : recorded;
      const hostGraphText = values['host-graph'] !== undefined ? readTextFile(resolve(io.cwd, values['host-graph'])) : '';
      const connectomeOf = (signedGraph?: Graph) =>
        connectomeArtifacts(estate.catalog, {
          ...(values['host-graph'] !== undefined ? { hostGraph: readGraphFile(io, values['host-graph']).graph } : {}),
          algorithm,
          signature: { scheme: values.scheme ?? null, keyId: values['key-id'] ?? null },
          ...(values.signer !== undefined ? { signer: commandSigner(io, values.signer) } : {}),
          ...(signedGraph ? { signedGraph } : {}),
        });
      // The first plan (--signs only) just gives the sign policy its data document: it is not signed.
      const optionsWith = (connectome: ConnectomeArtifacts, consumerRego: readonly RegoModuleFile[] = [], final = true): EstateCompileOptions => ({
        connectome,
        profile,
        createdAt,
        ...(previous ? { previous } : {}),
        format,
        ...(values.agent !== undefined ? { agent: values.agent } : {}),
        regoModules: [...enforcement, ...consumerRego],
        ...(signBundle && final ? { signBundle } : {}),
        ...(keepState && final ? (stateInFiles ? { keepState: true } : { recompiles: true }) : {}),
        ...(buffers && final ? { allocateArtifact: (n: number) => buffers.take(n) } : {}),
      });
      // The declared connectome, as the previous compile wrote it, when the catalog gives it the same inputs (--incremental).
      const keptConnectome = (): ConnectomeArtifacts | undefined => {
        if (start === undefined || values['host-graph'] !== undefined || values.signer !== undefined || values.signs !== undefined) return undefined;
        const files = keptConnectomeFiles(outDir, start, estate.catalog, algorithm);
        return files && keptConnectomeArtifacts(estate.catalog, files, algorithm, { scheme: values.scheme ?? null, keyId: values['key-id'] ?? null });
      };
      // Only a watch compiles again in this process; a signer may sign differently each time, so only an unsigned connectome is reused.
      const memoised = inputs !== undefined && values.signer === undefined;
      const reused = memoised ? connectomeMemo.get(estate.catalog, hostGraphText) : undefined;
      let connectome = reused ?? keptConnectome() ?? (await connectomeOf());
      if (memoised && reused === undefined) connectomeMemo.set(estate.catalog, hostGraphText, connectome);
      // --signs: the consumer's policy sees this compile's own data document (signs still unset).
      const signed = await signsFromOptions(io, values, usage, () => connectome.graph, async () => {
        const data = await compileDataJson(estate, optionsWith(connectome, [], false), start);
        return JSON.parse(new TextDecoder().decode(data)) as unknown;
      }, enforcement);
      if (signed) connectome = await connectomeOf(signed.graph);
      const compileOptions = optionsWith(connectome, signed?.regoModules);
      const compiled = await recompileEstate(start, estate, compileOptions);
      const result = await withDeltaFrom(io, values['delta-from'], compiled.result);
      // A state refused as it was read (damaged, or beside other artifacts) is the reason a compile is full.
      const summary = compiled.summary.mode === 'full' && read && 'refused' in read ? { ...compiled.summary, reason: read.refused } : compiled.summary;
      commitArtifactSet(outDir, result.files.map((f) => ({ name: f.name, bytes: f.bytes, ...keptFile(f) })), pause ? { pause } : {});
      rememberCommitted(outDir, result.files);
      const changes = previous ? reconcile(estate, previous.tools) : undefined;
      for (const k of changes?.governed_vanished ?? []) io.stderr(`toolgate: DRIFT: governed tool ${k} vanished from the catalog since the previous compile\n`);
      for (const k of changes?.new_ungoverned ?? []) io.stderr(`toolgate: UNGOVERNED: new tool ${k} appeared with no grant, data_access or governed_by naming it\n`);
      printJson(io, {
        out: outDir,
        profile,
        format,
        graph_state: result.graph_state,
        created_at: result.created_at,
        ...result.digests,
        files: result.files.map((f) => f.name),
        ...(changes ? { reconcile: changes } : {}),
        ...(keepState ? { recompile: summary } : {}),
      });
      return { state: compiled.state, summary, files: result.files, estate, options: compileOptions };
    };

    let kept = await compileOnce(undefined);
    if (values.watch !== true) return EXIT.OK;
    buffers?.reserve(artifactBytes(kept.state));
    const watched = [source.manifestPath, source.catalogPath, ...[values['host-graph'], values.signs].filter((p): p is string => p !== undefined).map((p) => resolve(io.cwd, p))];
    io.stderr(`toolgate: watching ${watched.join(', ')} (SIGINT stops)\n`);
    // Before the first save, one rehearsed (and dropped), so the first save is as quick as the next.
    const first = async () => void (await rehearseSave({ manifestPath: source.manifestPath, estate: kept.estate, state: kept.state, options: kept.options, ...(buffers ? { buffers } : {}), strictDrift: values['strict-drift'] ?? false }));
    await watchFiles({ paths: watched, first }, async () => {
      const t0 = performance.now();
      try {
        const once = await compileOnce(kept.state);
        // The set just replaced is written over by a later save: nothing reads it now but what the new state shares with it.
        buffers?.retire(artifactBytes(kept.state), artifactBytes(once.state));
        kept = once;
        if (io.stderrTTY) io.stderr(summaryText(once.summary, performance.now() - t0));
      } catch (e) {
        // A save mid-edit may not parse: say where, keep the last good set, and wait for the next save.
        reportError(e, io);
      }
    });
    // The state of the last set compiled, beside it, for a later --incremental or --watch (the set's files linked, not written again).
    commitArtifactSet(outDir, withStateFiles(kept.files, kept.state).map((f) => ({ name: f.name, bytes: f.bytes, ...keptFile(f) })), pause ? { pause } : {});
    io.stderr(`toolgate: stopped; kept the compile state in ${outDir}\n`);
    return EXIT.OK;
  },
};
