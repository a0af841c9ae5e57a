/**
 * Publishing an OPA bundle as an OCI artifact OPA can pull (`services[].type: oci`; OPA's
 * v1/download/oci_download.go takes the first `application/vnd.oci.image.layer.v1.tar+gzip`
 * layer, and keys its cache on that layer's digest): one tar+gzip layer holding bundle.tar.gz as it
 * is, an empty `{}` config of `application/vnd.oci.image.config.v1+json`, and an image manifest
 * (https://github.com/opencontainers/image-spec/blob/main/manifest.md). The push follows the OCI
 * distribution spec (https://github.com/opencontainers/distribution-spec/blob/main/spec.md):
 * `HEAD` a blob, else `POST /v2/<name>/blobs/uploads/` and a monolithic `PUT <location>?digest=`,
 * then `PUT /v2/<name>/manifests/<tag>`. Authentication: an anonymous `GET /v2/` and, on 401, the
 * challenge it names (Basic, or a Bearer token from the realm for `repository:<name>:pull,push`).
 *
 * Why by hand: the maintained npm OCI clients did not fit (sigstore's @sigstore/oci needs Node 22+
 * and only attaches referrers to an existing image; the others are unmaintained or bound to one
 * cloud). The protocol needed is these six requests.
 *
 * The manifest's bytes are canonical JSON, so identical bundle bytes give an identical manifest
 * digest: when the tag already names it, nothing is uploaded and the result says `unchanged`.
 * Credentials only ever go into an Authorization header, never into a message or a result.
 * The network is the caller's `fetch`.
 */
import { createHash } from 'node:crypto';
import { canonicalBytes } from '../canonical/json.ts';
import { ToolgateError } from '../errors.ts';

export const OCI_MANIFEST_MEDIA_TYPE = 'application/vnd.oci.image.manifest.v1+json';
export const OCI_CONFIG_MEDIA_TYPE = 'application/vnd.oci.image.config.v1+json';
export const OCI_LAYER_MEDIA_TYPE = 'application/vnd.oci.image.layer.v1.tar+gzip';

export interface OciRef {
  /** host[:port], as written (e.g. `127.0.0.1:5000`, `ghcr.io`). */
  readonly registry: string;
  /** e.g. `org/policy`. */
  readonly repository: string;
  readonly tag: string;
}

export interface Descriptor {
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
  readonly annotations?: Readonly<Record<string, string>>;
}

export interface OciArtifact {
  readonly config: { readonly descriptor: Descriptor; readonly bytes: Uint8Array };
  readonly layer: { readonly descriptor: Descriptor; readonly bytes: Uint8Array };
  readonly manifest: { readonly descriptor: Descriptor; readonly bytes: Uint8Array };
}

export type RegistryCredentials = { readonly kind: 'basic'; readonly username: string; readonly password: string } | { readonly kind: 'bearer'; readonly token: string };

export interface PushOptions {
  readonly fetch?: typeof fetch;
  readonly credentials?: RegistryCredentials;
  /** Plain HTTP instead of HTTPS (the caller allows it for loopback registries only). */
  readonly plainHttp?: boolean;
  /** Per request (default 30 s): a registry that hangs fails with REGISTRY_FAILED. */
  readonly timeoutMs?: number;
  /** Where the credentials came from, for the message when the registry refuses them (never the secret). */
  readonly credentialsFrom?: string;
}

export interface PushResult {
  readonly ref: string;
  readonly registry: string;
  readonly repository: string;
  readonly tag: string;
  /** The manifest digest: `registry/repository@digest` pins exactly these bytes. */
  readonly digest: string;
  readonly layer: Descriptor;
  readonly config: Descriptor;
  /** True when the tag already named this manifest: nothing was uploaded. */
  readonly unchanged: boolean;
  readonly uploaded: readonly string[];
}

const sha256 = (b: Uint8Array) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

const REPO_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;

/**
 * Parses `host[:port]/name[:tag]` (tag `latest` when absent). A digest reference cannot be pushed
 * to (a tag is what OPA's `resource` names), and a reference without a registry host is refused
 * rather than guessed.
 *
 * @example
 * parseOciRef('127.0.0.1:5000/toolgate/quickstart:v1') // { registry: '127.0.0.1:5000', repository: 'toolgate/quickstart', tag: 'v1' }
 */
export function parseOciRef(ref: string): OciRef {
  const bad = (why: string): never => {
    throw new ToolgateError('USAGE', `--oci ${JSON.stringify(ref)}: ${why} (expected HOST[:PORT]/NAME[:TAG])`);
  };
  if (/^[a-z]+:\/\//i.test(ref)) bad('write the reference without a URL scheme');
  if (ref.includes('@')) bad('a digest reference cannot be pushed to; name a tag');
  const slash = ref.indexOf('/');
  if (slash <= 0) bad('no registry host');
  const registry = ref.slice(0, slash);
  if (!/^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(registry) || !(registry.includes('.') || registry.includes(':') || registry === 'localhost')) bad(`${JSON.stringify(registry)} is not a registry host`);
  let rest = ref.slice(slash + 1);
  let tag = 'latest';
  const colon = rest.lastIndexOf(':');
  if (colon >= 0) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) bad(`${JSON.stringify(tag)} is not a valid tag`);
  }
  if (rest === '' || !rest.split('/').every((c) => REPO_COMPONENT.test(c))) bad(`${JSON.stringify(rest)} is not a valid repository name (lower-case components separated by /)`);
  return { registry, repository: rest, tag };
}

/** Whether a registry host is this machine (where `--plain-http` is allowed). */
export function isLoopbackRegistry(registry: string): boolean {
  const host = registry.replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1');
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * The artifact for one bundle: deterministic bytes (canonical JSON manifest, `{}` config), so the
 * same bundle always gives the same manifest digest.
 */
export function ociArtifact(bundle: Uint8Array, annotations: Readonly<Record<string, string>> = {}): OciArtifact {
  const configBytes = new TextEncoder().encode('{}');
  const config: Descriptor = { mediaType: OCI_CONFIG_MEDIA_TYPE, digest: sha256(configBytes), size: configBytes.length };
  const layer: Descriptor = { mediaType: OCI_LAYER_MEDIA_TYPE, digest: sha256(bundle), size: bundle.length, annotations: { 'org.opencontainers.image.title': 'bundle.tar.gz' } };
  const manifestValue = {
    schemaVersion: 2,
    mediaType: OCI_MANIFEST_MEDIA_TYPE,
    config,
    layers: [layer],
    ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
  };
  const manifestBytes = canonicalBytes(manifestValue);
  return {
    config: { descriptor: config, bytes: configBytes },
    layer: { descriptor: layer, bytes: bundle },
    manifest: { descriptor: { mediaType: OCI_MANIFEST_MEDIA_TYPE, digest: sha256(manifestBytes), size: manifestBytes.length }, bytes: manifestBytes },
  };
}

interface Challenge {
  readonly scheme: string;
  readonly params: Record<string, string>;
}

/** The first challenge of a `WWW-Authenticate` header. */
export function parseChallenge(header: string | null): Challenge | undefined {
  if (!header) return undefined;
  const m = /^\s*([A-Za-z]+)\s*(.*)$/.exec(header);
  if (!m) return undefined;
  const params: Record<string, string> = {};
  for (const p of m[2]!.matchAll(/([A-Za-z_]+)\s*=\s*(?:"([^"]*)"|([^,\s]*))/g)) params[p[1]!.toLowerCase()] = p[2] ?? p[3] ?? '';
  return { scheme: m[1]!.toLowerCase(), params };
}

/** Pushes the artifact under `ref` and returns what the registry now holds. */
export async function pushOciArtifact(ref: OciRef, artifact: OciArtifact, options: PushOptions = {}): Promise<PushResult> {
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const base = `${options.plainHttp ? 'http' : 'https'}://${ref.registry}`;
  const where = `registry ${ref.registry}`;
  let authorization: string | undefined;

  const call = async (method: string, url: string, init: { headers?: Record<string, string>; body?: Uint8Array; auth?: boolean } = {}): Promise<Response> => {
    const shown = `${method} ${new URL(url, base).pathname}`;
    try {
      return await doFetch(new URL(url, base), {
        method,
        redirect: 'error',
        headers: { ...(init.headers ?? {}), ...(init.auth !== false && authorization ? { authorization } : {}) },
        ...(init.body ? { body: init.body } : {}),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (e) {
      const err = e as Error & { cause?: { code?: string } };
      if (err.name === 'TimeoutError' || err.name === 'AbortError') throw new ToolgateError('REGISTRY_FAILED', `${where}: ${shown} did not answer within ${timeoutMs} ms`);
      throw new ToolgateError('REGISTRY_FAILED', `${where}: ${shown} failed: ${err.cause?.code ?? err.message}`);
    }
  };
  const failed = async (r: Response, what: string): Promise<never> => {
    let detail = '';
    try {
      const body = (await r.json()) as { errors?: { code?: string; message?: string }[] };
      detail = (body.errors ?? []).map((e) => `${e.code ?? ''}${e.message ? `: ${e.message}` : ''}`).join('; ');
    } catch {
      // no JSON error body
    }
    const hint = r.status === 401 || r.status === 403 ? ' (check TOOLGATE_REGISTRY_USERNAME/TOOLGATE_REGISTRY_PASSWORD or the Docker config entry for this registry)' : '';
    throw new ToolgateError('REGISTRY_FAILED', `${where}: ${what} answered ${r.status}${detail ? ` (${detail})` : ''}${hint}`);
  };

  // Authentication: anonymous first; on 401 the challenge says how.
  const ping = await call('GET', '/v2/', { auth: false });
  if (ping.status === 401) {
    const challenge = parseChallenge(ping.headers.get('www-authenticate'));
    const creds = options.credentials;
    if (challenge?.scheme === 'basic') {
      if (creds?.kind !== 'basic') throw new ToolgateError('CREDENTIALS_INVALID', `${where} asks for a user name and password, and none is configured (TOOLGATE_REGISTRY_USERNAME/TOOLGATE_REGISTRY_PASSWORD, or a Docker config entry)`);
      authorization = `Basic ${Buffer.from(`${creds.username}:${creds.password}`).toString('base64')}`;
    } else if (challenge?.scheme === 'bearer' && creds?.kind === 'bearer') {
      authorization = `Bearer ${creds.token}`;
    } else if (challenge?.scheme === 'bearer' && challenge.params.realm) {
      const realm = new URL(challenge.params.realm);
      if (realm.protocol !== 'https:' && !(options.plainHttp && isLoopbackRegistry(realm.host))) throw new ToolgateError('REGISTRY_FAILED', `${where}: token realm ${realm.origin} is not HTTPS; refusing to send credentials there`);
      if (challenge.params.service) realm.searchParams.set('service', challenge.params.service);
      realm.searchParams.set('scope', `repository:${ref.repository}:pull,push`);
      const basic = creds?.kind === 'basic' ? `Basic ${Buffer.from(`${creds.username}:${creds.password}`).toString('base64')}` : undefined;
      const tr = await call('GET', realm.href, { auth: false, headers: basic ? { authorization: basic } : {} });
      if (tr.status !== 200) await failed(tr, `token request to ${realm.origin}${realm.pathname}`);
      const body = (await tr.json().catch(() => ({}))) as { token?: unknown; access_token?: unknown };
      const token = typeof body.token === 'string' ? body.token : typeof body.access_token === 'string' ? body.access_token : undefined;
      if (!token) throw new ToolgateError('REGISTRY_FAILED', `${where}: the token service answered without a token`);
      authorization = `Bearer ${token}`;
    } else {
      throw new ToolgateError('REGISTRY_FAILED', `${where}: GET /v2/ answered 401 with no challenge toolgate can answer`);
    }
    const again = await call('GET', '/v2/');
    // Refused credentials are the operator's to fix, not the registry's fault: say whose they were.
    if (again.status === 401 || again.status === 403) {
      throw new ToolgateError('CREDENTIALS_INVALID', `${where} refused the credentials${options.credentialsFrom ? ` from ${options.credentialsFrom}` : ''} (GET /v2/ answered ${again.status}): check the user name and password, or the token`);
    }
    if (again.status !== 200) await failed(again, 'GET /v2/ with credentials');
  } else if (ping.status !== 200) {
    await failed(ping, 'GET /v2/');
  }

  const repo = `/v2/${ref.repository}`;
  const manifestDigest = artifact.manifest.descriptor.digest;
  const head = await call('HEAD', `${repo}/manifests/${ref.tag}`, { headers: { accept: OCI_MANIFEST_MEDIA_TYPE } });
  if (head.status === 200 && head.headers.get('docker-content-digest') === manifestDigest) {
    return { ref: `${ref.registry}/${ref.repository}:${ref.tag}`, ...ref, digest: manifestDigest, layer: artifact.layer.descriptor, config: artifact.config.descriptor, unchanged: true, uploaded: [] };
  }
  if (head.status !== 200 && head.status !== 404) await failed(head, `HEAD ${repo}/manifests/${ref.tag}`);

  const uploaded: string[] = [];
  for (const blob of [artifact.config, artifact.layer]) {
    const d = blob.descriptor.digest;
    const exists = await call('HEAD', `${repo}/blobs/${d}`);
    if (exists.status === 200) continue;
    if (exists.status !== 404) await failed(exists, `HEAD ${repo}/blobs/${d}`);
    const start = await call('POST', `${repo}/blobs/uploads/`);
    if (start.status !== 202) await failed(start, `POST ${repo}/blobs/uploads/`);
    const location = start.headers.get('location');
    if (!location) throw new ToolgateError('REGISTRY_FAILED', `${where}: POST ${repo}/blobs/uploads/ gave no Location`);
    const target = new URL(location, base);
    if (target.origin !== new URL(base).origin) throw new ToolgateError('REGISTRY_FAILED', `${where}: the upload location points at another host (${target.origin}); refusing to send the bundle and credentials there`);
    target.searchParams.set('digest', d);
    const put = await call('PUT', target.href, { headers: { 'content-type': 'application/octet-stream', 'content-length': String(blob.bytes.length) }, body: blob.bytes });
    if (put.status !== 201) await failed(put, `PUT ${repo}/blobs/uploads/… (${d})`);
    uploaded.push(d);
  }
  const put = await call('PUT', `${repo}/manifests/${ref.tag}`, { headers: { 'content-type': OCI_MANIFEST_MEDIA_TYPE }, body: artifact.manifest.bytes });
  if (put.status !== 201) await failed(put, `PUT ${repo}/manifests/${ref.tag}`);
  const stored = put.headers.get('docker-content-digest');
  if (stored !== null && stored !== manifestDigest) throw new ToolgateError('REGISTRY_FAILED', `${where}: stored the manifest as ${stored}, expected ${manifestDigest}`);
  uploaded.push(manifestDigest);
  return { ref: `${ref.registry}/${ref.repository}:${ref.tag}`, ...ref, digest: manifestDigest, layer: artifact.layer.descriptor, config: artifact.config.descriptor, unchanged: false, uploaded };
}
