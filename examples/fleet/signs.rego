# A consumer's sign policy for the fleet estate: one sign per connectome edge.
#
#   toolgate compile --example fleet --signs examples/fleet/signs.rego --out out/
#
# input: {"edge": {"from", "to", "kind", "provenance"}, "from": <node>, "to": <node>}
# data:  the OPA data document of the same compile (data.toolgate), so the signs follow the
#        profile compiled: a tool rejected under strict may be eligible under explore.
#
# Invoke edges (server -> tool), first rule that holds:
#   deny        some agent is rejected DENY_VIOLATION for the tool: calling it reaches a DENY
#               policy no expected exception covers (the memtomem-stm proxy surfacing project
#               memory to the reader; the publisher's writes reaching the sandbox's .env)
#   hold        the tool reaches a DENY policy only under an operator's exception
#               (DENY_GOVERNED for some agent: the planner's memory reads, the publisher's egress),
#               or it claims destructiveHint or openWorldHint: a human approves each call
#   allow       some agent is eligible for the tool
#   ungoverned  nothing above: the tool is granted to no one it is eligible for
# Read edges (server -> prompt, resource, resource template):
#   allow       to a prompt: text the server offers to the user, no data leaves through it
#   ungoverned  to a resource or template: no policy of this estate governs the catalog's resources
package toolgate.signs

import rego.v1

sign := "deny" if {
	violated[tool]
} else := "hold" if {
	held[tool]
} else := "allow" if {
	eligible[tool]
} else := "allow" if {
	input.edge.kind == "read"
	input.to.kind == "prompt"
} else := "ungoverned"

# The qualified key (server::tool) of the tool an invoke edge ends at.
tool := tool_by_node[input.edge.to] if {
	input.edge.kind == "invoke"
	input.to.kind == "tool"
}

# Each tool's connectome node id -> its qualified key. Connectome ids escape "%" and "/" inside a
# component; a tool node's id is server/tool/name. This and the sets below read only data, so an
# engine may derive them once per data document rather than once per edge.
tool_by_node[concat("/", [escape(t.server), "tool", escape(t.name)])] := key if {
	some key, t in data.toolgate.tools
}

escape(s) := replace(replace(s, "%", "%25"), "/", "%2F")

violated contains key if {
	some agent, key
	data.toolgate.agents[agent].tools[key].reason == "DENY_VIOLATION"
}

held contains key if {
	some agent, key
	data.toolgate.agents[agent].tools[key].reason == "DENY_GOVERNED"
}

held contains key if {
	some key, t in data.toolgate.tools
	some claim in ["destructiveHint", "openWorldHint"]
	t.annotations[claim] == true
}

eligible contains key if {
	some agent, key
	data.toolgate.agents[agent].tools[key].allow == true
}
