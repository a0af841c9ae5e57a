# Docker MCP Gateway's before:exec interceptor (docker/mcp-gateway docs/interceptors.md): the
# gateway writes the tool call {"Session", "Params": {"_meta", "name", "arguments"}, "Extra"} to
# the script's stdin; anything the script prints ends the call and becomes its result (a
# CallToolResult JSON). docs/gateways/docker-interceptor.sh wraps stdin as
# {"agent": $TOOLGATE_AGENT, "request": <stdin>} and runs opa eval on the bundle.
#
#   query:   data.toolgate.gateways.docker.rejection (the script asks interceptor_output)
#   answer:  a CallToolResult with isError true when the call is denied; undefined when allowed
#
# The gateway aggregates servers and shows upstream tool names, so a bare name must be exposed by
# exactly one server.
package toolgate.gateways.docker

import data.toolgate.gateways.core
import rego.v1

params := p if {
	p := input.request.Params
	is_object(p)
} else := {}

proofs := {"docker_agent": agent}

agent := a if {
	a := input.agent
} else := null

meta := m if {
	m := params._meta
	is_object(m)
} else := {}

label := n if {
	n := params.name
	is_string(n)
} else := "the call"

# The caller, resolved once. The first branch is the common configuration, one docker_interceptor
# source (the script's TOOLGATE_AGENT); core.identify decides every other (and would answer the same
# for it).
identity := {"ok": true, "agent": core.agent_of(a), "reason": null} if {
	[src] := data.toolgate.identity.by_gateway.docker.sources
	src.kind == "docker_interceptor"
	a := input.agent
	is_string(a)
	a != ""
} else := core.identify("docker", proofs)

verdict := core.refused("BODY_NOT_JSON_RPC") if {
	not is_object(object.get(input, "request", null))
} else := core.verdict(identity, "tools/call", params.name, core.contract_of(object.get(meta, "io.toolgate/tool", null), object.get(meta, "io.toolgate/tool_contract_digest", null))) if {
	is_string(params.name)
} else := core.refused("NAME_MISSING")

default decision := {"allow": false, "reason": "INTERNAL_UNDEFINED", "agent": null, "method": "tools/call", "tool": null}

decision := verdict

rejection := {
	"content": [{"type": "text", "text": concat("", ["toolgate denied ", label, ": ", reason])}],
	"isError": true,
	"structuredContent": {"toolgate": decision},
} if {
	decision.allow != true
}

reason := r if {
	r := decision.reason
	is_string(r)
} else := "INTERNAL_UNDEFINED"

# What the interceptor script prints: the rejection as JSON text, or "" to let the call through.
# Always defined, so the script (opa eval --fail) can tell "allowed" from "not evaluated".
interceptor_output := json.marshal(rejection) if {
	rejection
} else := ""
