#!/usr/bin/env bash
# Unpacks Debian's docker-registry (the CNCF distribution registry) into .cache/docker-registry/
# (git-ignored) for the publish and fleet tests. It is never installed with dpkg: the package's
# maintainer scripts would start a system service listening on :5000 on every interface. The tests
# run `docker-registry serve CONFIG` themselves, bound to 127.0.0.1 with temporary storage.
# Reuses an unpacked binary that reports the pinned version.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/.cache/docker-registry"
want="2.8.2"
bin="$dest/usr/bin/docker-registry"
if [[ -x "$bin" ]] && "$bin" --version 2>/dev/null | grep -q " $want"; then
  echo "install-docker-registry: docker-registry $want already unpacked ($bin)"
  exit 0
fi
command -v apt-get >/dev/null 2>&1 || { echo "install-docker-registry: apt-get is not available" >&2; exit 3; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"
# `apt-get download` only fetches the .deb; nothing is configured or started.
(cd "$tmp" && apt-get download -qq "docker-registry=$want*" 2>/dev/null) \
  || { apt-get update -qq && (cd "$tmp" && apt-get download -qq "docker-registry=$want*"); }
rm -rf "$dest"
mkdir -p "$dest"
dpkg-deb -x "$tmp"/docker-registry_*.deb "$dest"
"$bin" --version
