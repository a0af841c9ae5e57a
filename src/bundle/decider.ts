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
 *
 * A cache may also keep bundle views: for one tarball's exact bytes, the part of its certified load
 * the decision needs (DecisionPart), so a gate deciding again and again on one bundle neither
 * inflates nor unpacks it, nor looks its certificate up (most of what a certified load still costs).
 */
import { crc32 } from './gzip-wasm.ts';
import { isJsonObject, isPlainObject } from '../canonical/json-object.ts';
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
  /**
   * Records a miss of `key` and says whether one was recorded before. A store that has it admits a
   * view on its second miss: a bundle decided once (a fresh CI job asking one pair) pays nothing
   * for writing a view it would never read. Absent, every miss is admitted.
   */
  missedBefore?(key: string): boolean;
}

export interface PolicyCacheOptions {
  readonly store: PolicyCertificateStore;
  /** Names the engine that compiled (a build digest): a different toolgate never reuses an entry. */
  readonly engine: string;
  /**
   * Where bundle views are kept: the decision's part of one tarball's certified load (the reached
   * modules and their trees, the rule outline, the data and revision), under its bytes, so a later
   * load of the same bytes reads neither the tarball nor the certificate store. Absent, every load
   * reads the tarball.
   */
  readonly views?: PolicyCertificateStore;
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
const VIEW_FORMAT = 'toolgate-bundle-view/1';
/** Larger tarballs get no view: their data, not the reading of the tarball, is most of a load. */
const MAX_VIEW_TARBALL_BYTES = 1 << 20;

/**
 * Loads a bundle's Rego (builtin engine) with the bundle's own data, once, for many decisions: the
 * modules and data OPA's bundle loader would load (load.ts), or the refusal OPA would give.
 */
export async function bundleDecider(bytes: Uint8Array, source = 'bundle.tar.gz', limits?: TarballLimits, cache?: PolicyCacheOptions): Promise<BundleDecider> {
  const views = cache?.views !== undefined && limits === undefined && bytes.length <= MAX_VIEW_TARBALL_BYTES ? cache.views : undefined;
  const viewKey = views && cache ? bundleViewKey(cache.engine, bytes) : undefined;
  let part = views && viewKey !== undefined ? bundleViewFrom(views.get(viewKey), viewKey, bytes) : undefined;
  // the certificate says the whole set compiled, so this part does: the checks that only report are not run again
  let policy = part && compilePart(part.modules.map(withTree), part.regoVersion, source);
  const viewed = policy !== undefined;
  const admitView = views !== undefined && viewKey !== undefined && !viewed && (views.missedBefore?.(viewKey) ?? true);
  // A view the part contradicts is not trusted: the tarball is read, as without one.
  const first = viewed ? undefined : await certifiedLoad(bytes, source, limits, cache);
  if (first) {
    part = first.certificate ? decisionPart(first, first.certificate, source) : undefined;
    // decoding takes a stored tree over, so a part that is to be stored as a view compiles from a
    // copy (a JSON value: copied as JSON, faster than structuredClone)
    policy = part && compilePart(part.modules.map((m) => withTree(admitView && m.ast !== undefined ? { ...m, ast: JSON.parse(JSON.stringify(m.ast)) as unknown } : m)), part.regoVersion, source);
  }
  const cached = policy !== undefined;
  let conflict: RegoError | undefined;
  let dataValue: Value | undefined;
  let loaded: FirstLoad | DecisionPart;
  if (part && policy) {
    loaded = part;
    dataValue = fromJSON(part.data);
    conflict = outlineConflict(part.rules, dataValue);
  } else {
    // No certificate, or one the part contradicts (not trusted): load and compile everything.
    const full = first && !first.certificate ? first : await certifiedLoad(bytes, source, limits, undefined);
    const regoVersion = singleVersion(full.modules, source);
    const parsed = full.modules.map((m) => ({ ...m, parsed: m.parsed ?? parseModule(m.text, m.id, m.regoVersion) }));
    // read before compiling: the compiler takes the trees over and may rewrite them
    const certified = cache && first?.key !== undefined && first.entries ? certifiedModules(parsed, first.entries) : undefined;
    policy = compile(parsed.map((m) => ({ name: m.id, text: m.text, parsed: m.parsed })), regoVersion, source);
    loaded = full;
    part = undefined;
    if (cache && first?.key !== undefined && certified) {
      const certificate: Certificate = { modules: certified, rules: ruleOutlineOf(policy.policy.compiled.root) };
      cache.store.put(first.key, { format: CERTIFICATE_FORMAT, key: first.key, ...certificate });
      part = decisionPart(full, certificate, source);
    }
  }
  const bound = policy;
  const { data, revision } = loaded;
  try {
    // a value fromJSON already made is kept as it is: the data is converted once
    bound.setData(dataValue ?? data);
  } catch (e) {
    if (e instanceof RegoError) throw toolgateErrorFromRego(e);
    throw e;
  }
  if (admitView && part && roundTripsAsJson(data)) {
    const tarball = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
    views.put(viewKey, { format: VIEW_FORMAT, key: viewKey, tarball, ...part });
  }
  return {
    revision,
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

/** What a load gives the decider: the modules, data and revision, and the modules' certificate when one is trusted. */
interface FirstLoad {
  readonly modules: readonly BundleModule[];
  readonly data: Record<string, unknown>;
  readonly revision: string | null;
  readonly certificate?: Certificate;
  /** Where the modules' certificate is stored, and the modules it is made for (with a cache). */
  readonly key?: string;
  readonly entries?: readonly ModuleEntry[];
}

/**
 * What a certified load compiles, and all it needs besides: the modules the decision reaches (with
 * their stored trees, encoded), the outline the data is checked against, the data and revision.
 * A bundle view is this, stored under the tarball's bytes.
 */
interface DecisionPart {
  readonly revision: string | null;
  readonly regoVersion: RegoVersion;
  readonly data: Record<string, unknown>;
  readonly modules: readonly PartModule[];
  readonly rules: RuleOutline;
}

interface PartModule {
  readonly id: string;
  readonly text: string;
  /** The parsed tree, encoded (rego/ast-codec.ts), cut to the rules the decision reaches; absent, the text is parsed. */
  readonly ast?: unknown;
}

/**
 * The tarball read and loaded; with a cache, the certificate stored for its modules looked up (their
 * packages then come from it, and they are not parsed).
 */
async function certifiedLoad(bytes: Uint8Array, source: string, limits: TarballLimits | undefined, cache: PolicyCacheOptions | undefined): Promise<FirstLoad> {
  const files = await readTarball(bytes, source, limits);
  let key: string | undefined;
  let entries: readonly ModuleEntry[] | undefined;
  let certificate: Certificate | undefined;
  const loaded = loadBundleWith(files, source, {
    knownPackages: cache
      ? (found) => {
          key = certificateKey(cache.engine, found);
          entries = found;
          certificate = certificateFrom(cache.store.get(key), key, found);
          return certificate?.modules.map((m) => m.package);
        }
      : undefined,
  });
  const revision = loaded.manifestJSON.revision;
  return { modules: loaded.modules, data: loaded.data, revision: typeof revision === 'string' ? revision : null, ...(certificate ? { certificate } : {}), ...(key !== undefined ? { key } : {}), ...(entries ? { entries } : {}) };
}

/** The part of a load its certificate says the decision reaches. */
function decisionPart(load: FirstLoad, certificate: Certificate, source: string): DecisionPart {
  const reached = reachableModules(certificate.modules, DECISION_PATH);
  const modules = load.modules.flatMap((m, i): PartModule[] => {
    const ast = certificate.modules[i]!.ast;
    return reached[i] ? [{ id: m.id, text: m.text, ...(ast !== undefined ? { ast } : {}) }] : [];
  });
  return { revision: load.revision, regoVersion: singleVersion(load.modules, source), data: load.data, modules, rules: certificate.rules };
}

function singleVersion(modules: readonly BundleModule[], source: string): RegoVersion {
  if (modules.length === 0) throw new ToolgateError('BUNDLE_INVALID', `${source}: the bundle holds no Rego modules`, { at: [{ file: source }] });
  const versions = new Set(modules.map((m) => m.regoVersion));
  if (versions.size > 1) throw new ToolgateError('BUNDLE_INVALID', `${source}: the bundle mixes rego versions 0 and 1, which the builtin engine cannot load together`, { at: [{ file: source }] });
  return [...versions][0]!;
}

function compile(modules: readonly ModuleSource[], regoVersion: RegoVersion, source: string, knownToCompile = false): BoundPolicy {
  try {
    return bindPolicy(modules, { regoVersion, knownToCompile });
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
function compilePart(modules: readonly ModuleSource[], regoVersion: RegoVersion, source: string): BoundPolicy | undefined {
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

/** A part's module to compile: with its stored tree when that decodes, else its text (parsed). */
function withTree(m: PartModule): ModuleSource {
  if (m.ast !== undefined) {
    try {
      return { name: m.id, text: m.text, parsed: decodeModule(m.ast) };
    } catch {
      // the text is parsed instead
    }
  }
  return { name: m.id, text: m.text };
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

/**
 * Where a bundle view is stored: a CRC-32 of the engine and of the tarball's bytes. An index, not a
 * proof: bundleViewFrom compares the bytes themselves.
 */
function bundleViewKey(engine: string, bytes: Uint8Array): string {
  const crc = crc32(bytes, crc32(`${VIEW_FORMAT}\n${engine}\n${bytes.length}\n`));
  return (crc >>> 0).toString(16).padStart(8, '0');
}

/**
 * A stored value as the view of exactly these tarball bytes, or undefined when it is not one. A view
 * is written by this engine from a load of the same bytes (with the default limits), so it holds
 * that load's decision part; like a certificate, it is trusted as the folder it is read from is.
 */
function bundleViewFrom(v: unknown, key: string, bytes: Uint8Array): DecisionPart | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as { format?: unknown; key?: unknown; tarball?: unknown } & { [K in keyof DecisionPart]?: unknown };
  if (o.format !== VIEW_FORMAT || o.key !== key || typeof o.tarball !== 'string' || !Buffer.from(o.tarball, 'base64').equals(bytes)) return undefined;
  if (!(o.revision === null || typeof o.revision === 'string') || (o.regoVersion !== 'v0' && o.regoVersion !== 'v1') || !isJsonObject(o.data) || !isRuleOutline(o.rules)) return undefined;
  const isPartModule = (m: unknown): m is PartModule => isJsonObject(m) && typeof m.id === 'string' && typeof m.text === 'string';
  if (!Array.isArray(o.modules) || !o.modules.every(isPartModule)) return undefined;
  return { revision: o.revision, regoVersion: o.regoVersion, data: o.data, modules: o.modules, rules: o.rules };
}

/**
 * Whether JSON text gives `v` back exactly: null, booleans, strings, finite numbers but -0, and
 * arrays and plain objects of those, which is all a bundle's JSON or YAML data holds but for a -0.
 * A view keeps its data as JSON, so data holding anything else gets none.
 */
function roundTripsAsJson(v: unknown): boolean {
  const stack: unknown[] = [v];
  while (stack.length > 0) {
    const x = stack.pop();
    if (typeof x === 'number') {
      if (!Number.isFinite(x) || Object.is(x, -0)) return false;
    } else if (Array.isArray(x) || isPlainObject(x)) {
      for (const y of Array.isArray(x) ? x : Object.values(x)) stack.push(y);
    } else if (x !== null && typeof x !== 'string' && typeof x !== 'boolean') return false;
  }
  return true;
}
