#!/usr/bin/env bash
# The release pipeline of examples/release/README.md, runnable anywhere (CI or a laptop):
#   examples/release/release.sh ESTATE_DIR OUT_DIR OCI_REF
# Environment:
#   TOOLGATE_SIGNING_KEY_PEM       the bundle signing key (PEM), from the CI secret store; required
#   TOOLGATE_VERIFICATION_KEY_PEM  its public key (PEM), to check the signature before publishing
#   TOOLGATE_SIGNING_ALG           default RS256;  TOOLGATE_SIGNING_KEY_ID  default "release"
#   TOOLGATE_REGISTRY_USERNAME / TOOLGATE_REGISTRY_PASSWORD   registry credentials (or a Docker config)
#   TOOLGATE  how to run toolgate (default "npx toolgate");  OPA  the opa binary (default "opa")
#   REGO_DIR  the enforcement Rego to test (default: the rego/ folder of the installed toolgate)
#   PLAIN_HTTP=1  only for a loopback registry (local dry runs)
# The key never goes on a command line: it is written to a private temp file, removed on exit.
set -euo pipefail
estate="$1"; out="$2"; ref="$3"
toolgate=(${TOOLGATE:-npx toolgate})
opa="${OPA:-opa}"
rego="${REGO_DIR:-$(node -p 'require("path").join(require("path").dirname(require.resolve("toolgate/package.json")), "rego")' 2>/dev/null || echo rego)}"
: "${TOOLGATE_SIGNING_KEY_PEM:?the signing key (PEM) must come from the secret store}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
umask 077
printf '%s\n' "$TOOLGATE_SIGNING_KEY_PEM" > "$work/signing.pem"

echo "== 1. the enforcement Rego's own tests, by toolgate's engine and by OPA"
"${toolgate[@]}" rego test "$rego"
"$opa" test "$rego"

echo "== 2. compile, refusing drift, signed with the release key"
"${toolgate[@]}" compile --manifest "$estate/governance.yaml" --catalog "$estate/catalog.json" --strict-drift \
  --signing-key "$work/signing.pem" --signing-alg "${TOOLGATE_SIGNING_ALG:-RS256}" --signing-key-id "${TOOLGATE_SIGNING_KEY_ID:-release}" \
  --out "$out"

echo "== 3. check what will ship: checksums, and the signature as OPA verifies it"
(cd "$out" && sha256sum -c SHA256SUMS)
if [[ -n "${TOOLGATE_VERIFICATION_KEY_PEM:-}" ]]; then
  printf '%s\n' "$TOOLGATE_VERIFICATION_KEY_PEM" > "$work/verify.pem"
  "${toolgate[@]}" bundle verify "$out/bundle.tar.gz" --verification-key "$work/verify.pem" --signing-alg "${TOOLGATE_SIGNING_ALG:-RS256}" --verification-key-id "${TOOLGATE_SIGNING_KEY_ID:-release}"
fi

echo "== 4. publish to the registry the fleet pulls from"
plain=()
[[ "${PLAIN_HTTP:-}" == 1 ]] && plain=(--plain-http)
"${toolgate[@]}" publish "$out" --oci "$ref" "${plain[@]}"
