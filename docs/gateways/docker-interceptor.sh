#!/bin/sh
# toolgate as a Docker MCP Gateway before:exec interceptor (docs/gateways.md):
#
#   TOOLGATE_AGENT=ci-bot TOOLGATE_BUNDLE=/etc/toolgate/bundle.tar.gz \
#     docker mcp gateway run --interceptor "before:exec:/path/to/docker-interceptor.sh"
#
# The gateway writes the tool call ({"Session", "Params": {"name", "arguments", "_meta"}, "Extra"})
# to stdin and treats anything on stdout as the call's result. This script asks OPA (not toolgate)
# for data.toolgate.gateways.docker.interceptor_output with input {"agent": $TOOLGATE_AGENT,
# "request": <stdin>}, prints nothing when the call is allowed, and prints a CallToolResult with
# isError otherwise. The gateway ignores exit codes, so every failure (no opa, no bundle, input
# that is not JSON, an undefined answer) prints a rejection too: it fails closed.
#
# TOOLGATE_AGENT  the agent this gateway serves (letters, digits and ._:@/- only), required
# TOOLGATE_BUNDLE the compiled bundle (default ./bundle.tar.gz)
# TOOLGATE_OPA    the opa binary (default opa on PATH)
set -u

reject() {
  printf '{"content":[{"type":"text","text":"toolgate denied the call: %s"}],"isError":true}\n' "$1"
  exit 0
}

agent=${TOOLGATE_AGENT:-}
case "$agent" in
  '' | *[!A-Za-z0-9._:@/-]*) agent_json=null ;;
  *) agent_json="\"$agent\"" ;;
esac
request=$(cat) || reject INTERCEPTOR_INPUT
[ -n "$request" ] || reject INTERCEPTOR_INPUT

out=$(printf '{"agent":%s,"request":%s}' "$agent_json" "$request" |
  "${TOOLGATE_OPA:-opa}" eval --bundle "${TOOLGATE_BUNDLE:-bundle.tar.gz}" --stdin-input --fail --format raw \
    'data.toolgate.gateways.docker.interceptor_output' 2>/dev/null) || reject OPA_EVAL_FAILED

case "$out" in
  '') exit 0 ;;
  '{'*) printf '%s\n' "$out" ;;
  *) reject OPA_ANSWER_UNREADABLE ;;
esac
