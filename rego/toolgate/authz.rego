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
# Signs: when a consumer's sign policy signed an invoke edge to the tool `deny` or `hold` (in
# data.toolgate.connectome.edges), a call the grant would allow is refused with SIGN_DENY or
# SIGN_HOLD. A rejection the compile already decided keeps its own reason; unset, allow and
# ungoverned signs change nothing.
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
	"deny" in tool_signs
} else := "SIGN_HOLD" if {
	"hold" in tool_signs
}

# The signs on invoke edges into the tool's connectome node (id server/tool/name, with "%" and
# "/" escaped inside a component).
tool_signs contains edge.sign if {
	some edge in data.toolgate.connectome.edges
	edge.kind == "invoke"
	edge.to == tool_node
}

tool_node := concat("/", [escape_component(t.server), "tool", escape_component(t.name)]) if {
	t := data.toolgate.tools[input.tool]
}

escape_component(s) := replace(replace(s, "%", "%25"), "/", "%2F")
