/**
 * The consumer's sign-policy Rego as shipped in `bundle.tar.gz` (DESIGN.md §4: the OPA bundle carries
 * "optionally the consumer's Rego"). OPA loads a bundle only when every module's package lies under
 * one of the manifest's roots (here the single root `toolgate`), so a module outside it would make OPA
 * reject the whole bundle: it is refused here, before anything is written.
 *
 * Inside the root, two more places are refused because shipping there would change what the gateway
 * enforces rather than add a sign policy beside it:
 *  - a package that is, or lies under, a key of the data document (`toolgate.agents`, ...): its rules
 *    would merge into (or conflict with) the compiled data — a rule named like an agent would grant;
 *  - a package of the enforcement Rego (`toolgate.authz`) or the root itself: its rules would join
 *    the enforcement policy's own.
 * Every module at fault is named (file, line, package) in one error.
 */
import { ToolgateError, type SourceAt } from '../errors.ts';
import { parseModule } from '../rego/parser.ts';
import type { ModuleSource } from '../rego/index.ts';

/** A Rego module placed in the bundle: its path inside the tarball and its text. */
export interface BundleRegoModule {
  readonly path: string;
  readonly text: string;
}

export interface ConsumerRegoOptions {
  /** The bundle root (manifest `roots`), e.g. `toolgate`. */
  readonly root: string;
  /** The data document's keys under the root (`agents`, `tools`, ...). */
  readonly dataKeys: readonly string[];
  /** The enforcement Rego already in the bundle (their packages are reserved). */
  readonly enforcement: readonly ModuleSource[];
}

const PLAIN = /^[A-Za-z_][A-Za-z0-9_]*$/;

function packagePath(m: ModuleSource): { pkg: string[]; at: SourceAt } {
  const parsed = parseModule(m.text, m.name, 'v1');
  return { pkg: parsed.pkg.slice(1), at: { file: m.name, line: parsed.pkgLoc.line, col: parsed.pkgLoc.col } };
}

function baseName(name: string): string {
  const i = Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\'));
  return name.slice(i + 1);
}

/**
 * Checks the consumer's modules against the bundle root and places each at
 * `ROOT/<package components>/<file name>` (e.g. `toolgate/signs/signs.rego` for `package toolgate.signs`).
 *
 * @example
 *   consumerBundleModules([{ name: 'signs.rego', text }], { root: 'toolgate', dataKeys: ['agents'], enforcement })
 *   // -> [{ path: 'toolgate/signs/signs.rego', text }]
 */
export function consumerBundleModules(modules: readonly ModuleSource[], options: ConsumerRegoOptions): BundleRegoModule[] {
  const reserved = new Map<string, string>();
  for (const k of options.dataKeys) reserved.set(k, `the data document's data.${options.root}.${k}`);
  for (const e of options.enforcement) {
    const sub = packagePath(e).pkg[1];
    if (sub !== undefined) reserved.set(sub, `the enforcement policy's package ${options.root}.${sub}`);
  }
  const faults: string[] = [];
  const at: SourceAt[] = [];
  const out: BundleRegoModule[] = [];
  const paths = new Set<string>();
  for (const m of modules) {
    const { pkg, at: where } = packagePath(m);
    const shown = `package ${pkg.join('.')}`;
    let fault: string | undefined;
    if (pkg[0] !== options.root) {
      fault = `${shown} lies outside the bundle root ${options.root}: OPA would refuse the whole bundle; use a package under ${options.root}, such as ${options.root}.signs`;
    } else if (pkg.length < 2) {
      fault = `${shown} is the bundle root itself, beside the compiled data; use a package under it, such as ${options.root}.signs`;
    } else if (reserved.has(pkg[1]!)) {
      fault = `${shown} would merge into ${reserved.get(pkg[1]!)}; use another package under ${options.root}, such as ${options.root}.signs`;
    } else if (!pkg.every((c) => PLAIN.test(c))) {
      fault = `${shown} has a component that is not a plain name, so it has no bundle path`;
    }
    if (fault !== undefined) {
      faults.push(`${m.name}:${where.line}: ${fault}`);
      at.push(where);
      continue;
    }
    const path = `${pkg.join('/')}/${baseName(m.name)}`;
    if (paths.has(path)) {
      faults.push(`${m.name}: a second module at bundle path ${path}`);
      at.push({ file: m.name });
      continue;
    }
    paths.add(path);
    out.push({ path, text: m.text });
  }
  if (faults.length > 0) {
    throw new ToolgateError('SIGN_POLICY_REFUSED', `the sign policy cannot ship in the bundle: ${faults.length} module(s) refused; first: ${faults[0]}`, { at, details: faults });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
