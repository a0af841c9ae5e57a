/** `toolgate publish --oci REF`: push a compiled bundle to an OCI registry OPA pulls from (src/publish/oci.ts). */
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { readTarball } from '../../bundle/read-tarball.ts';
import { ToolgateError } from '../../errors.ts';
import { registryCredentials } from '../../publish/credentials.ts';
import { isLoopbackRegistry, ociArtifact, parseOciRef, pushOciArtifact } from '../../publish/oci.ts';
import { intOption, parseCommandArgs, usageError } from '../args.ts';
import type { Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { readBytesFile, readTextFile } from '../fs-io.ts';
import { printJson } from '../output.ts';

const usage = `usage: toolgate publish OUT_DIR|BUNDLE.tar.gz --oci HOST[:PORT]/NAME[:TAG] [--plain-http] [--timeout MS]

Pushes the compile's bundle.tar.gz as an OCI artifact OPA pulls with services[].type: oci: one
application/vnd.oci.image.layer.v1.tar+gzip layer (the bundle bytes as they are), an empty
application/vnd.oci.image.config.v1+json config, an image manifest. Prints the tag and the
manifest digest as JSON; identical bytes already under the tag are not pushed again
("unchanged": true).
Credentials, never from the command line: TOOLGATE_REGISTRY_USERNAME + TOOLGATE_REGISTRY_PASSWORD,
or TOOLGATE_REGISTRY_TOKEN, else the registry's "auths" entry in $DOCKER_CONFIG/config.json
(default ~/.docker/config.json). Credential helpers are not run.
  --plain-http   HTTP instead of HTTPS; only for a loopback registry (localhost, 127.x, ::1)
  --timeout      per request, in milliseconds (default 30000)`;

export const publishCommand: Command = {
  name: 'publish',
  summary: 'push a compiled OPA bundle to an OCI registry (one layer, empty config), tag and digest as JSON',
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, { oci: { type: 'string' }, 'plain-http': { type: 'boolean' }, timeout: { type: 'string' } }, usage);
    if (values.oci === undefined) usageError('--oci REF is required', usage);
    if (positionals.length !== 1) usageError('name one compile output folder or bundle tarball', usage);
    const ref = parseOciRef(values.oci);
    const plainHttp = values['plain-http'] ?? false;
    if (plainHttp && !isLoopbackRegistry(ref.registry)) usageError(`--plain-http is only for a loopback registry; ${ref.registry} is not one`, usage);
    const timeoutMs = intOption(values.timeout, 'timeout', usage) ?? 30_000;

    const input = resolve(io.cwd, positionals[0]!);
    const path = existsSync(input) && statSync(input).isDirectory() ? join(input, 'bundle.tar.gz') : input;
    const bytes = readBytesFile(path);
    // Only a bundle that reads as one is pushed: a half-written or foreign file stops here, and so
    // does one OPA would refuse to load (a .manifest of the wrong shape, a module that does not parse).
    const files = await readTarball(bytes, path);
    if (!files.some((f) => f.name === '.manifest')) throw new ToolgateError('PUBLISH_REFUSED', `${path}: no .manifest; not a compiled OPA bundle`, { at: [{ file: path }] });
    const { loadBundle } = await import('../../bundle/load.ts');
    const manifestRevision = loadBundle(files, path).manifestJSON.revision;
    const revision = typeof manifestRevision === 'string' ? manifestRevision : null;

    const configDir = io.env.DOCKER_CONFIG ?? join(io.env.HOME ?? homedir(), '.docker');
    const configPath = join(configDir, 'config.json');
    const docker = existsSync(configPath) ? { path: configPath, text: readTextFile(configPath) } : undefined;
    const creds = registryCredentials(ref.registry, io.env, docker);
    if (!creds.credentials && creds.helper) io.stderr(`toolgate: warning: ${configPath} names the credential helper "${creds.helper}" for ${ref.registry}; toolgate does not run helpers, so it pushes anonymously (set TOOLGATE_REGISTRY_USERNAME/PASSWORD)\n`);

    const artifact = ociArtifact(bytes, revision !== null ? { 'org.openpolicyagent.bundle.revision': revision } : {});
    const credentialsFrom = creds.source === 'environment' ? 'the environment (TOOLGATE_REGISTRY_*)' : creds.source === 'docker-config' ? `${configPath} (auths)` : undefined;
    const result = await pushOciArtifact(ref, artifact, { plainHttp, timeoutMs, ...(creds.credentials ? { credentials: creds.credentials } : {}), ...(credentialsFrom ? { credentialsFrom } : {}) });
    io.stderr(
      result.unchanged
        ? `toolgate: ${result.ref} already holds these bytes (${result.digest}); nothing pushed\n`
        : `toolgate: pushed ${result.ref} (${result.digest}; ${result.uploaded.length - 1} blob(s) uploaded)\n`,
    );
    printJson(io, {
      ref: result.ref,
      registry: result.registry,
      repository: result.repository,
      tag: result.tag,
      digest: result.digest,
      pinned: `${result.registry}/${result.repository}@${result.digest}`,
      revision,
      layer: result.layer,
      config: result.config,
      unchanged: result.unchanged,
      credentials: creds.source,
    });
    return EXIT.OK;
  },
};
