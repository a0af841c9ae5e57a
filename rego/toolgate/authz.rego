# toolgate enforcement policy: the decision a gateway asks OPA for on every MCP tool call.
#
#   query:  data.toolgate.authz.decision
#   input:  {"agent": "<agent id>", "tool": "<server::tool>"}
#   result: {"allow": bool, "reason": null | "<reason>", "profile": ..., "graph_state": {...}}
#
# The data document (data.toolgate, written by `toolgate compile`) is sparse: only granted
# (agent, tool) pairs are present. Everything else is denied: NOT_GRANTED, or AGENT_NOT_FOUND
# for an agent the manifest does not declare.
package toolgate.authz

import rego.v1

decision := {
	"allow": allow,
	"reason": reason,
	"profile": data.toolgate.profile,
	"graph_state": data.toolgate.graph_state,
}

default allow := false

allow if entry.allow == true

entry := data.toolgate.agents[input.agent].tools[input.tool]

reason := "AGENT_NOT_FOUND" if {
	not data.toolgate.agents[input.agent]
} else := "NOT_GRANTED" if {
	not entry
} else := entry.reason
