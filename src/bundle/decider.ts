/**
 * A bundle's own enforcement Rego evaluated against its own data, in-process: what a gateway running
 * `opa run --bundle` would answer for `data.toolgate.authz.decision`. Apart from the rest of
 * bundle/ so that `toolgate decide` loads neither signing nor inspection code.
 *
 * With a compiled-policy cache, the first load of a set of modules parses and compiles all of
 * them, as OPA does when it activates the bundle, and stores a certificate under a digest of their
 * bytes: every module parses and the whole set compiles, each module's package and the data paths
 * it reads that lead to other modules, the parsed rules the decision can reach, and the outline of
 * the compiled rule tree. A later load of the same modules (the data may differ) compiles only
 * those rules, from their stored trees, and checks the data against the outline, so it answers and
 * refuses as the whole policy would.
 *
 * A certificate holds the modules it was made for (name, rego version and bytes) and is trusted
 * only for a bundle whose modules are those, byte for byte; its key, a CRC-32 of the same, only
 * says where to look. A SHA-256 key would load node:crypto, and the streams it pulls in, on every
 * decision, a few milliseconds of a CLI decide; a pure-JS SHA-256 of the modules, run cold in so
 * short a process, costs more still.
 */
import { crc32 } from './gzip-wasm.ts';
import { ToolgateError, toolgateErrorFromRego } from '../errors.ts';
import { AstCodecError, bindPolicy, decodeModule, encodeModule, fromJSON, parseModule, RegoError, toJSON, wallClockNs, type BoundPolicy, type Module, type ModuleSource, type RegoLimits, type RegoVersion, type Value } from '../rego/index.ts';
import { depsAmong, moduleDataDeps, reachableModules, reachableRules } from '../rego/module-deps.ts';
import { isRuleOutline, outlineConflict, ruleOutlineOf, type RuleOutline } from '../rego/rule-outline.ts';
import { loadBundleWith, type BundleModule, type ModuleEntry } from './load.ts';
import { readTarball, type TarballLimits } from './read-tarball.ts';

export const DECISION_ENTRYPOINT = 'data.toolgate.authz.decision';
const DECISION_PATH = DECISION_ENTRYPOINT.split('.').slice(1);

export interface BundleDecider {
  readonly revision: string | null;
  /** Whether a cached certificate spared parsing and compiling the modules the decision cannot reach. */
  readonly cached: boolean;
  /**
   * The decision; `evalLimits` bound the bundle's Rego (a limit is refused naming the bundle and
   * rule). `now` is the time it is made at, in ns since the epoch (time.now_ns and token expiry
   * read it); absent, the host's wall clock, as OPA reads it.
   */
  decide(agent: string, tool: string, evalLimits?: RegoLimits, now?: bigint): unknown;
}

/** Where certificates are kept (the CLI's is a folder); values are plain JSON. */
export interface PolicyCertificateStore {
  /** The value stored under `key`, or undefined when there is none (or it is unreadable). */
  get(key: string): unknown;
  put(key: string, value: unknown): void;
}

export interface PolicyCacheOptions {
  readonly store: PolicyCertificateStore;
  /** Names the engine that compiled (a build digest): a different toolgate never reuses an entry. */
  readonly engine: string;
}

interface CertifiedModule {
  readonly entryName: string;
  readonly regoVersion: RegoVersion;
  /** The module's bytes as UTF-8 text (a leading BOM kept), so that a hit is a byte-for-byte match. */
  readonly source: string;
  readonly package: string;
  readonly pkg: readonly string[];
  readonly deps: readonly (readonly string[])[];
  /**
   * For a module the decision reaches, its parsed tree (rego/ast-codec.ts) with only the rules the
   * decision can reach, so that a later load compiles them without parsing the module: parsing
   * and compiling are most of what a certified load costs.
   */
  readonly ast?: unknown;
}

interface Certificate {
  readonly modules: readonly CertifiedModule[];
  readonly rules: RuleOutline;
}

const CERTIFICATE_FORMAT = 'toolgate-policy-certificate/3';

/**
 * Loads a bundle's Rego (builtin engine) with the bundle's own data, once, for many decisions: the
 * modules and data OPA's bundle loader would load (load.ts), or the refusal OPA would give.
 */
export async function bundleDecider(bytes: Uint8Array, source = 'bundle.tar.gz', limits?: TarballLimits, cache?: PolicyCacheOptions): Promise<BundleDecider> {
  const files = await readTarball(bytes, source, limits);
  let key: string | undefined;
  let moduleEntries: readonly ModuleEntry[] = [];
  let certificate: Certificate | undefined;
  let loaded = loadBundleWith(files, source, {
    knownPackages: cache
      ? (entries) => {
          key = certificateKey(cache.engine, entries);
          moduleEntries = entries;
          certificate = certificateFrom(cache.store.get(key), key, entries);
          return certificate?.modules.map((m) => m.package);
        }
      : undefined,
  });
  const regoVersion = singleVersion(loaded.modules, source);
  let policy: BoundPolicy | undefined;
  let conflict: RegoError | undefined;
  let dataValue: Value | undefined;
  if (certificate) {
    const reached = reachableModules(certificate.modules, DECISION_PATH);
    const part = loaded.modules.flatMap((m, i) => (reached[i] ? [withTree(m, certificate!.modules[i]!)] : []));
    // the certificate says the whole set compiled, so this part does: the checks that only report are not run again
    policy = compilePart(part, regoVersion, source);
    if (policy) {
      dataValue = fromJSON(loaded.data);
      conflict = outlineConflict(certificate.rules, dataValue);
    }
    // A certificate the part contradicts is not trusted: load and compile everything, as without one.
    else loaded = loadBundleWith(files, source, {});
  }
  const cached = policy !== undefined;
  if (!policy) {
    const parsed = loaded.modules.map((m) => ({ ...m, parsed: m.parsed ?? parseModule(m.text, m.id, m.regoVersion) }));
    // read before compiling: the compiler takes the trees over and may rewrite them
    const certified = cache && key !== undefined ? certifiedModules(parsed, moduleEntries) : undefined;
    policy = compile(parsed, regoVersion, source);
    if (cache && key !== undefined && certified) {
      const fresh: Certificate = { modules: certified, rules: ruleOutlineOf(policy.policy.compiled.root) };
      cache.store.put(key, { format: CERTIFICATE_FORMAT, key, ...fresh });
    }
  }
  const bound = policy;
  try {
    // a value fromJSON already made is kept as it is: the data is converted once
    bound.setData(dataValue ?? loaded.data);
  } catch (e) {
    if (e instanceof RegoError) throw toolgateErrorFromRego(e);
    throw e;
  }
  const revision = loaded.manifestJSON.revision;
  return {
    revision: typeof revision === 'string' ? revision : null,
    cached,
    decide(agent: string, tool: string, evalLimits?: RegoLimits, now: bigint = wallClockNs()) {
      try {
        if (conflict) throw conflict;
        const v = bound.evaluate(DECISION_ENTRYPOINT, { input: { agent, tool }, now, ...(evalLimits ? { limits: evalLimits } : {}) });
        return v === undefined ? null : toJSON(v);
      } catch (e) {
        if (e instanceof RegoError && e.code === 'REGO_LIMIT_EXCEEDED') throw new ToolgateError(e.code, `${source}: ${e.message}`, { at: [{ file: source }, ...e.at], cause: e });
        if (e instanceof RegoError) throw toolgateErrorFromRego(e);
        throw e;
      }
    },
  };
}

function singleVersion(modules: readonly BundleModule[], source: string): RegoVersion {
  if (modules.length === 0) throw new ToolgateError('BUNDLE_INVALID', `${source}: the bundle holds no Rego modules`, { at: [{ file: source }] });
  const versions = new Set(modules.map((m) => m.regoVersion));
  if (versions.size > 1) throw new ToolgateError('BUNDLE_INVALID', `${source}: the bundle mixes rego versions 0 and 1, which the builtin engine cannot load together`, { at: [{ file: source }] });
  return [...versions][0]!;
}

function compile(modules: readonly BundleModule[], regoVersion: RegoVersion, source: string, knownToCompile = false): BoundPolicy {
  try {
    // Modules the loader parsed (with the same name and version) to read their package are compiled as they are.
    return bindPolicy(
      modules.map((m): ModuleSource => ({ name: m.id, text: m.text, ...(m.parsed ? { parsed: m.parsed } : {}) })),
      { regoVersion, knownToCompile },
    );
  } catch (e) {
    // OPA refuses to activate a bundle whose modules do not compile.
    if (e instanceof RegoError || e instanceof ToolgateError) throw new ToolgateError('BUNDLE_INVALID', `${source}: ${e.message}`, { at: [{ file: source }, ...e.at], cause: e });
    throw e;
  }
}

/**
 * The reachable modules compiled, or undefined if they do not compile alone (which a certificate
 * says the whole set does): the caller then compiles the whole set, and refuses as it refuses.
 */
function compilePart(modules: readonly BundleModule[], regoVersion: RegoVersion, source: string): BoundPolicy | undefined {
  try {
    return compile(modules, regoVersion, source, true);
  } catch {
    return undefined;
  }
}

/**
 * What a certificate records of each parsed module (before the compiler rewrites the trees): its
 * package, the data paths it reads that lead to another of these modules (a smaller entry to read,
 * the same reach), and the tree of each module the decision reaches, cut to the rules it reaches.
 */
function certifiedModules(parsed: readonly (BundleModule & { parsed: Module })[], entries: readonly ModuleEntry[]): CertifiedModule[] {
  const reach = depsAmong(parsed.map((m) => ({ pkg: m.parsed.pkg.slice(1), deps: moduleDataDeps(m.parsed) })));
  const reached = reachableModules(parsed.map((m, i) => ({ pkg: m.parsed.pkg.slice(1), deps: reach[i]! })), DECISION_PATH);
  const rules = reachableRules(parsed.map((m) => m.parsed), DECISION_PATH);
  return parsed.map((m, i) => {
    const ast = reached[i] ? encodedTree({ ...m.parsed, rules: m.parsed.rules.filter((_, j) => rules[i]![j]) }) : undefined;
    return { entryName: entries[i]!.entryName, regoVersion: m.regoVersion, source: utf8Text(entries[i]!.bytes), package: m.package, pkg: m.parsed.pkg.slice(1), deps: reach[i]!, ...(ast !== undefined ? { ast } : {}) };
  });
}

/** The tree in a certificate's form, or undefined for one the codec cannot keep exactly (the module is then parsed). */
function encodedTree(m: Module): unknown {
  try {
    return encodeModule(m);
  } catch (e) {
    if (e instanceof AstCodecError) return undefined;
    throw e;
  }
}

/** The module with the tree its certificate holds, when it holds one that decodes; else as it is (it is parsed). */
function withTree(m: BundleModule, c: CertifiedModule): BundleModule {
  if (c.ast === undefined) return m;
  try {
    return { ...m, parsed: decodeModule(c.ast) };
  } catch {
    return m;
  }
}

/** A module's bytes (valid UTF-8: the module parsed) as text, a BOM kept: encoding it gives the bytes back. */
const utf8Text = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');

/**
 * Where a certificate is stored: a CRC-32 of the engine and of each module's name, rego version and
 * bytes, in order. An index, not a proof: certificateFrom compares the modules themselves.
 */
function certificateKey(engine: string, entries: readonly ModuleEntry[]): string {
  let crc = crc32(`${CERTIFICATE_FORMAT}\n${engine}\n${entries.length}\n`);
  for (const e of entries) {
    crc = crc32(`${e.entryName.length}:${e.entryName}\n${e.regoVersion}\n${e.bytes.length}\n`, crc);
    crc = crc32(e.bytes, crc);
  }
  return (crc >>> 0).toString(16).padStart(8, '0');
}

/**
 * A stored value as the certificate of these modules, or undefined when it is not one: a damaged
 * entry, or one made for other modules (another name, rego version or byte), is a miss.
 */
function certificateFrom(v: unknown, key: string, entries: readonly ModuleEntry[]): Certificate | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const c = v as { format?: unknown; key?: unknown; modules?: unknown; rules?: unknown };
  if (c.format !== CERTIFICATE_FORMAT || c.key !== key || !Array.isArray(c.modules) || c.modules.length !== entries.length || !isRuleOutline(c.rules)) return undefined;
  const paths = (x: unknown): x is string[][] => Array.isArray(x) && x.every(isPath);
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    const o = c.modules[i] as { entryName?: unknown; regoVersion?: unknown; source?: unknown; package?: unknown; pkg?: unknown; deps?: unknown } | null;
    if (typeof o !== 'object' || o === null || typeof o.package !== 'string' || !isPath(o.pkg) || !paths(o.deps)) return undefined;
    if (o.entryName !== e.entryName || o.regoVersion !== e.regoVersion || typeof o.source !== 'string' || !Buffer.from(o.source, 'utf8').equals(e.bytes)) return undefined;
  }
  return { modules: c.modules as Certificate['modules'], rules: c.rules };
}

function isPath(x: unknown): x is string[] {
  return Array.isArray(x) && x.every((s) => typeof s === 'string');
}
