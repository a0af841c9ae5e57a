# A consumer's sign policy for the quickstart estate: one sign per connectome edge.
#
#   toolgate compile --example quickstart --signs examples/quickstart/signs.rego --out out/
#   toolgate sign --graph out/connectome.json --policy examples/quickstart/signs.rego \
#                 --data out/data.json --out signed.json
#
# input: {"edge": {"from", "to", "kind", "provenance"}, "from": <node>, "to": <node>}
# data:  the OPA data document toolgate compiles (data.toolgate)
#
#   deny        an invoke edge to a tool some agent is rejected DENY_VIOLATION for: calling it
#               reaches a DENY policy the grant does not excuse
#   hold        an invoke edge to a tool whose annotations claim destructiveHint: a human approves
#   allow       an invoke edge to a tool at least one agent is eligible for
#   ungoverned  every other edge: no rule here covers it
package toolgate.signs

import rego.v1

sign := "deny" if {
	violated[tool]
} else := "hold" if {
	data.toolgate.tools[tool].annotations.destructiveHint == true
} else := "allow" if {
	eligible[tool]
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

eligible contains key if {
	some agent, key
	data.toolgate.agents[agent].tools[key].allow == true
}
