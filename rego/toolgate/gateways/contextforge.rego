# IBM ContextForge's OPA plugin (plugins/external/opa/opapluginfilter/plugin.py): POST
# {opa_base_url}{policy}/{policy_endpoint} with input {kind, user, payload, context, request_ip,
# headers, mode}; the result is a boolean or an object with "allow".
#
#   plugin config:  opa_base_url http://127.0.0.1:8181/v1/data/, extensions.policy
#                   toolgate/gateways/contextforge, policy_endpoints [allow_tool_pre_invoke,
#                   allow_prompt_pre_fetch, allow_resource_pre_fetch] (the plugin picks the
#                   endpoint whose name contains the hook name; "allow" otherwise)
#   answer:         {allow, reason, agent, tool}
#
# The plugin sends user "none" and headers {} as written, and fails OPEN (answers allow) on any
# non-200 answer or a result without "allow" (docs/gateways.md says how to close it). Its
# prompt_pre_fetch sends kind "post_tool" with mode "input"; that is read as prompts/get.
# Output hooks (mode "output") are refused: toolgate decides calls, not results.
package toolgate.gateways.contextforge

import data.toolgate.gateways.core
import rego.v1

kind_method := {
	"tool_pre_invoke": "tools/call",
	"prompt_pre_fetch": "prompts/get",
	"post_tool": "prompts/get",
	"resource_pre_fetch": "resources/read",
}

proofs := {
	"contextforge_user": user,
	"contextforge_context": {k: v | some src in core.gateway_identity("contextforge").sources; k := src.context_key; is_string(k); v := context[k]},
}

user := u if {
	u := input.user
} else := null

context := c if {
	c := input.context
	is_object(c)
} else := {}

payload := p if {
	p := input.payload
	is_object(p)
} else := {}

method := kind_method[input.kind]

name := payload.uri if {
	method == "resources/read"
} else := payload.name if {
	method in {"tools/call", "prompts/get"}
} else := null

# The caller, resolved once. The first branch is the common configuration, one contextforge_user
# source read from input.user; core.identify decides every other (and would answer the same for it).
identity := {"ok": true, "agent": core.agent_of(u), "reason": null} if {
	[src] := data.toolgate.identity.by_gateway.contextforge.sources
	src.kind == "contextforge_user"
	src.context_key == null
	u := input.user
	is_string(u)
	not u in {"", "none"}
} else := core.identify("contextforge", proofs)

verdict := core.refused("OUTPUT_NOT_DECIDED") if {
	input.mode == "output"
} else := core.refused("METHOD_NOT_ALLOWED") if {
	not method
} else := core.verdict(identity, method, name, null)

default response := {"allow": false, "reason": "INTERNAL_UNDEFINED", "agent": null, "tool": null}

response := {"allow": verdict.allow == true, "reason": verdict.reason, "agent": verdict.agent, "tool": verdict.tool}

allow := response

allow_tool_pre_invoke := response

allow_prompt_pre_fetch := response

allow_resource_pre_fetch := response
