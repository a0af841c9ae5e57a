#!/usr/bin/env bash
# Builds the pinned Go tools of scripts/go-tools.txt into .cache/bin/ (git-ignored) with
# `go install`, skipping a tool whose binary already reports the pinned version.
# Usage: scripts/install-go-tools.sh [NAME...]   (default: every tool in the list)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/.cache/bin"
mkdir -p "$bin"
command -v go >/dev/null 2>&1 || { echo "install-go-tools: go is not installed (needed to build the pinned tools)" >&2; exit 3; }

want=("$@")
while read -r name spec; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  if ((${#want[@]})) && [[ ! " ${want[*]} " == *" $name "* ]]; then continue; fi
  version="${spec##*@}"
  if [[ -x "$bin/$name" ]] && "$bin/$name" version 2>/dev/null | grep -q "${version#v}"; then
    echo "install-go-tools: $name $version already built ($bin/$name)"
    continue
  fi
  start=$(date +%s)
  echo "install-go-tools: building $name $version (go install $spec) ..."
  GOBIN="$bin" CGO_ENABLED=0 go install "$spec"
  echo "install-go-tools: $name $version built in $(( $(date +%s) - start )) s"
done < "$root/scripts/go-tools.txt"
