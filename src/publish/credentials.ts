/**
 * Where registry credentials come from, in order: the environment
 * (`TOOLGATE_REGISTRY_USERNAME` + `TOOLGATE_REGISTRY_PASSWORD`, or `TOOLGATE_REGISTRY_TOKEN`), then a
 * Docker config file's `auths` entry for the registry (`{"auths": {"host": {"auth": base64(user:pass)}}}`,
 * https://docs.docker.com/reference/cli/docker/#docker-cli-configuration-file-configjson-properties).
 * Never the command line, so no secret shows in `ps` or shell history. Credential helpers
 * (`credsStore`, `credHelpers`) run programs toolgate does not run; a registry that only has one is
 * reported, not guessed.
 *
 * Pure: the caller reads the environment and the file.
 */
import { ToolgateError } from '../errors.ts';
import { isJsonObject } from '../canonical/json-object.ts';
import { parseJsonInput } from '../canonical/strict-json.ts';
import type { RegistryCredentials } from './oci.ts';

export interface CredentialLookup {
  readonly credentials?: RegistryCredentials;
  /** Where they came from (never the secret itself). */
  readonly source: 'environment' | 'docker-config' | 'none';
  /** Set when the Docker config names a credential helper for this registry, which toolgate does not run. */
  readonly helper?: string;
}

/** The keys a Docker config may file a registry under. */
function keysFor(registry: string): string[] {
  const keys = [registry, `https://${registry}`, `http://${registry}`, `https://${registry}/v2/`, `https://${registry}/v1/`];
  if (registry === 'docker.io' || registry === 'registry-1.docker.io') keys.push('https://index.docker.io/v1/');
  return keys;
}

/**
 * @example
 * registryCredentials('ghcr.io', { TOOLGATE_REGISTRY_TOKEN: 't' }) // { credentials: { kind: 'bearer', token: 't' }, source: 'environment' }
 */
export function registryCredentials(registry: string, env: Readonly<Record<string, string | undefined>>, dockerConfig?: { text: string; path: string }): CredentialLookup {
  const user = env.TOOLGATE_REGISTRY_USERNAME;
  const pass = env.TOOLGATE_REGISTRY_PASSWORD;
  if ((user === undefined) !== (pass === undefined)) {
    throw new ToolgateError('CREDENTIALS_INVALID', 'set both TOOLGATE_REGISTRY_USERNAME and TOOLGATE_REGISTRY_PASSWORD, or neither');
  }
  if (user !== undefined && pass !== undefined) return { credentials: { kind: 'basic', username: user, password: pass }, source: 'environment' };
  if (env.TOOLGATE_REGISTRY_TOKEN) return { credentials: { kind: 'bearer', token: env.TOOLGATE_REGISTRY_TOKEN }, source: 'environment' };
  if (!dockerConfig) return { source: 'none' };
  // The strict reader: a fault at line:col, a repeated key refused rather than the last one kept.
  const config: unknown = parseJsonInput(dockerConfig.text, dockerConfig.path);
  if (!isJsonObject(config)) throw new ToolgateError('CREDENTIALS_INVALID', `${dockerConfig.path}: expected a JSON object`, { at: [{ file: dockerConfig.path }] });
  const auths = isJsonObject(config.auths) ? config.auths : {};
  for (const key of keysFor(registry)) {
    const entry = auths[key];
    if (!isJsonObject(entry)) continue;
    const at = [{ file: dockerConfig.path, path: `auths.${key}` }];
    if (typeof entry.auth === 'string' && entry.auth !== '') {
      const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon <= 0) throw new ToolgateError('CREDENTIALS_INVALID', `${dockerConfig.path}: auths.${key}.auth is not base64 of user:password`, { at });
      return { credentials: { kind: 'basic', username: decoded.slice(0, colon), password: decoded.slice(colon + 1) }, source: 'docker-config' };
    }
    if (typeof entry.username === 'string' && typeof entry.password === 'string') {
      return { credentials: { kind: 'basic', username: entry.username, password: entry.password }, source: 'docker-config' };
    }
    if (typeof entry.registrytoken === 'string') return { credentials: { kind: 'bearer', token: entry.registrytoken }, source: 'docker-config' };
  }
  const helpers = isJsonObject(config.credHelpers) ? config.credHelpers : {};
  const helper = keysFor(registry).map((k) => helpers[k]).find((h): h is string => typeof h === 'string') ?? (typeof config.credsStore === 'string' ? config.credsStore : undefined);
  return { source: 'none', ...(helper !== undefined ? { helper } : {}) };
}
