# toolgate enforcement policy: the decision a gateway asks OPA for on every MCP tool call.
#
#   query:  data.toolgate.authz.decision
#   input:  {"agent": "<agent id>", "tool": "<server::tool>"}
#   result: {"allow": bool, "reason": null | "<reason>", "profile": ..., "graph_state": {...}}
#
# The data document (data.toolgate, written by `toolgate compile`) is sparse: only granted
# (agent, tool) pairs are present. Everything else is denied: NOT_GRANTED, or AGENT_NOT_FOUND
# for an agent the manifest does not declare.
#
# Signs: when a consumer's sign policy signed an invoke edge to the tool `deny` or `hold`, a call
# the grant would allow is refused with SIGN_DENY or SIGN_HOLD. The compile indexes those signs per
# tool in data.toolgate.signs_by_tool ({"server::tool": {"deny": bool, "hold": bool}}, only tools
# with either sign), so a decision is a lookup, not a scan of data.toolgate.connectome.edges.
# A rejection the compile already decided keeps its own reason; unset, allow and ungoverned signs
# change nothing.
package toolgate.authz

import rego.v1

decision := {
	"allow": allow,
	"reason": reason,
	"profile": data.toolgate.profile,
	"graph_state": data.toolgate.graph_state,
}

default allow := false

allow if {
	entry.allow == true
	not sign_reason
}

entry := data.toolgate.agents[input.agent].tools[input.tool]

reason := "AGENT_NOT_FOUND" if {
	not data.toolgate.agents[input.agent]
} else := "NOT_GRANTED" if {
	not entry
} else := entry.reason if {
	entry.allow != true
} else := sign_reason if {
	sign_reason
} else := entry.reason

sign_reason := "SIGN_DENY" if {
	tool_signs.deny == true
} else := "SIGN_HOLD" if {
	tool_signs.hold == true
}

tool_signs := data.toolgate.signs_by_tool[input.tool]

# decide(agent, tool): what decision answers for input {agent, tool}, as a function, so that the
# gateway entrypoints (data.toolgate.gateways.*) and visible_tools share one rule set without
# re-evaluating decision `with input`. authz_test.rego and test/unit/gateways check that the two
# agree on every pair of both examples. The first branch is the allowed call, so it is answered
# without trying each reason to refuse it first.
decide(agent, tool) := {"allow": true, "reason": e.reason} if {
	e := data.toolgate.agents[agent].tools[tool]
	e.allow == true
	not sign_reason_of(tool)
} else := {"allow": false, "reason": "AGENT_NOT_FOUND"} if {
	not data.toolgate.agents[agent]
} else := {"allow": false, "reason": "NOT_GRANTED"} if {
	not data.toolgate.agents[agent].tools[tool]
} else := {"allow": false, "reason": data.toolgate.agents[agent].tools[tool].reason} if {
	data.toolgate.agents[agent].tools[tool].allow != true
} else := {"allow": false, "reason": sign_reason_of(tool)} if {
	sign_reason_of(tool)
} else := {"allow": true, "reason": data.toolgate.agents[agent].tools[tool].reason}

sign_reason_of(tool) := "SIGN_DENY" if {
	data.toolgate.signs_by_tool[tool].deny == true
} else := "SIGN_HOLD" if {
	data.toolgate.signs_by_tool[tool].hold == true
}

# visible_tools: for input {"agent": A}, the sorted tool keys decision would allow for A under the
# bundle's profile (what a gateway that filters tools/list may show). Empty for an unknown agent.
visible_tools := visible_tools_of(input.agent)

visible_tools_of(agent) := sort([tool |
	some tool, _ in object.get(data.toolgate.agents, [agent, "tools"], {})
	decide(agent, tool).allow == true
])
