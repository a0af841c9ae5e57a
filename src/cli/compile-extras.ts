/**
 * The parts of `toolgate compile` that belong to sign slots and signed bundles, kept here so the
 * compile command only wires them: `--signs POLICY [--engine E] [--sign-entrypoint REF]` and
 * `--signing-key KEY.pem --signing-alg ALG [--signing-key-id ID] [--scope S] [--claims-file F]`
 * or `--bundle-signer CMD`.
 */
import { createPrivateKey } from 'node:crypto';
import { resolve } from 'node:path';
import { ToolgateError } from '../errors.ts';
import type { Graph } from '../connectome/index.ts';
import { isSigningAlgorithm, signBundle, SIGNING_ALGORITHMS, type JwsSigner, type SigningAlgorithm } from '../bundle/signatures.ts';
import { DEFAULT_SIGN_ENTRYPOINT, signEdges } from '../signs/index.ts';
import type { CliIo } from './command.ts';
import { runSignerCommand } from './signer-command.ts';
import { readTextFile } from './fs-io.ts';
import { usageError } from './args.ts';
import { engineOption, limitsFromOptions, LIMIT_OPTIONS, LIMIT_USAGE, loadSignPolicy, policySource, readJsonDocument } from './sign-policy.ts';
import { consumerBundleModules } from '../signs/bundle-rego.ts';
import { DATA_ROOT } from '../compile/data-document.ts';
import type { RegoModuleFile } from '../compile/compile.ts';

export const COMPILE_EXTRA_OPTIONS = {
  signs: { type: 'string' },
  engine: { type: 'string' },
  'sign-entrypoint': { type: 'string' },
  'signing-key': { type: 'string' },
  'signing-alg': { type: 'string' },
  'signing-key-id': { type: 'string' },
  scope: { type: 'string' },
  'claims-file': { type: 'string' },
  'bundle-signer': { type: 'string' },
  ...LIMIT_OPTIONS,
} as const;

export const COMPILE_EXTRA_USAGE = `  --signs POLICY  a consumer sign policy (.rego, folder, policy.wasm or wasm bundle) evaluated per connectome
                  edge with this compile's data document as data; the signed graph goes into connectome.json
                  and data.json (--engine builtin|wasm|opa, --sign-entrypoint, default ${DEFAULT_SIGN_ENTRYPOINT});
                  Rego source also ships in bundle.tar.gz, so its package must lie under toolgate (e.g. toolgate.signs)
${LIMIT_USAGE}
  --signing-key KEY.pem --signing-alg ${SIGNING_ALGORITHMS.slice(0, 9).join('|')}|...  write bundle.tar.gz's
                  .signatures.json as OPA verifies it (--signing-key-id ID: kid; --scope S; --claims-file F: extra claims)
  --bundle-signer CMD  instead of a key: CMD gets the JWS signing input on stdin and prints the signature (base64url)`;

type Values = Partial<Record<keyof typeof COMPILE_EXTRA_OPTIONS, string>>;

export interface CompileSigns {
  /** The connectome with its sign slots filled. */
  readonly graph: Graph;
  /** The consumer's Rego to ship in bundle.tar.gz under the root (empty for a wasm policy). */
  readonly regoModules: readonly RegoModuleFile[];
}

/**
 * The signed graph and the consumer's Rego for the bundle, or undefined without --signs.
 * `dataDocument` is this compile's data document; `enforcement` the bundle's own Rego.
 */
export async function signsFromOptions(
  io: CliIo,
  values: Values,
  usage: string,
  // A getter: a connectome kept from the previous compile builds its graph only when asked.
  graphOf: () => Graph,
  dataDocument: () => Promise<unknown>,
  enforcement: readonly RegoModuleFile[] = [],
): Promise<CompileSigns | undefined> {
  if (values.signs === undefined) {
    if (values.engine !== undefined || values['sign-entrypoint'] !== undefined) usageError('--engine and --sign-entrypoint apply only with --signs', usage);
    if (values['deadline-ms'] !== undefined || values['max-steps'] !== undefined) usageError('--deadline-ms and --max-steps apply only with --signs', usage);
    return undefined;
  }
  const engine = engineOption(values.engine, usage);
  const limits = limitsFromOptions(values, usage);
  const entrypoint = values['sign-entrypoint'] ?? DEFAULT_SIGN_ENTRYPOINT;
  // Load (and so compile) the policy once, before the data document is built.
  const source = policySource(io, values.signs);
  const policy = await loadSignPolicy(io, values.signs, engine, entrypoint, source);
  const data = await dataDocument();
  // Rego source ships in the bundle; check where it would sit before evaluating a single edge.
  const regoModules =
    source.kind === 'rego'
      ? consumerBundleModules(source.modules, {
          root: DATA_ROOT,
          dataKeys: Object.keys(((data as Record<string, unknown>)[DATA_ROOT] ?? {}) as object),
          enforcement: enforcement.map((m) => ({ name: m.path, text: m.text })),
        })
      : [];
  if (source.kind !== 'rego') io.stderr(`toolgate: note: ${values.signs} is compiled wasm, not Rego source: bundle.tar.gz carries no sign policy\n`);
  policy.setData(data);
  return { graph: signEdges(graphOf(), policy, { entrypoint, policyName: values.signs, limits: limits() }).graph, regoModules };
}

/** `--bundle-signer CMD`: the command gets the JWS signing input on stdin and prints the signature. */
function commandJwsSigner(io: CliIo, command: string): JwsSigner {
  return (input) => runSignerCommand(io, command, input, 'bundle signer');
}

/** The bundle signing callback for compileEstate, or undefined when the bundle is not signed. */
export function bundleSignerFromOptions(io: CliIo, values: Values, usage: string): ((files: readonly { name: string; bytes: Uint8Array }[]) => Promise<Uint8Array>) | undefined {
  const key = values['signing-key'];
  const cmd = values['bundle-signer'];
  if (key === undefined && cmd === undefined) {
    for (const k of ['signing-alg', 'signing-key-id', 'scope', 'claims-file'] as const) {
      if (values[k] !== undefined) usageError(`--${k} applies only with --signing-key or --bundle-signer`, usage);
    }
    return undefined;
  }
  if (key !== undefined && cmd !== undefined) usageError('give either --signing-key or --bundle-signer, not both', usage);
  const alg = values['signing-alg'] ?? 'RS256';
  if (!isSigningAlgorithm(alg)) usageError(`--signing-alg must be one of ${SIGNING_ALGORITHMS.join(', ')}, got ${JSON.stringify(alg)}`, usage);
  let claims: Record<string, unknown> | undefined;
  if (values['claims-file'] !== undefined) {
    const c = readJsonDocument(readTextFile(resolve(io.cwd, values['claims-file'])), values['claims-file']);
    if (typeof c !== 'object' || c === null || Array.isArray(c)) throw new ToolgateError('PARSE_ERROR', `${values['claims-file']}: claims must be a JSON object`, { at: [{ file: values['claims-file'] }] });
    claims = c as Record<string, unknown>;
  }
  // Read the key now, so a bad path fails before anything is compiled; its text is never printed.
  const keyText = key !== undefined ? readTextFile(resolve(io.cwd, key)) : undefined;
  if (key !== undefined && !alg.startsWith('HS')) {
    try {
      createPrivateKey(keyText!);
    } catch (e) {
      // The file is named, never its text.
      throw new ToolgateError('SIGNER_FAILED', `${key}: not a usable PEM private key for ${alg} (${(e as NodeJS.ErrnoException).code ?? 'unreadable'})`, { at: [{ file: key }] });
    }
  }
  const algorithm: SigningAlgorithm = alg;
  return (files) =>
    signBundle(files, {
      algorithm,
      ...(keyText !== undefined ? { key: keyText } : { signer: commandJwsSigner(io, cmd!) }),
      ...(values['signing-key-id'] !== undefined ? { keyId: values['signing-key-id'] } : {}),
      ...(values.scope !== undefined ? { scope: values.scope } : {}),
      ...(claims !== undefined ? { claims } : {}),
    });
}
