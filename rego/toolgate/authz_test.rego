package toolgate.authz_test

import data.toolgate.authz
import rego.v1

# Each test replaces the parts of data.toolgate the policy reads. (Replacing data.toolgate as a
# whole would also replace the rules under it, data.toolgate.authz included.)
graph_state := {"instance_id": "tg-test", "generation": 3}

agents := {
	"planner": {"tools": {
		"fs::read_file": {"allow": true, "decision": "eligible", "reason": null, "risk_score": 0},
		"fs::write_file": {"allow": false, "decision": "rejected", "reason": "DENY_VIOLATION", "risk_score": 1},
	}},
	"idle": {"tools": {}},
}

test_granted_eligible_tool_is_allowed if {
	d := authz.decision with input as {"agent": "planner", "tool": "fs::read_file"}
		with data.toolgate.agents as agents
		with data.toolgate.profile as "strict"
		with data.toolgate.graph_state as graph_state
	d.allow == true
	d.reason == null
	d.profile == "strict"
	d.graph_state == {"instance_id": "tg-test", "generation": 3}
}

test_rejected_tool_carries_its_reason if {
	d := authz.decision with input as {"agent": "planner", "tool": "fs::write_file"}
		with data.toolgate.agents as agents
		with data.toolgate.profile as "strict"
		with data.toolgate.graph_state as graph_state
	d.allow == false
	d.reason == "DENY_VIOLATION"
}

test_ungranted_tool_is_not_granted if {
	d := authz.decision with input as {"agent": "planner", "tool": "fs::delete"}
		with data.toolgate.agents as agents
		with data.toolgate.profile as "strict"
		with data.toolgate.graph_state as graph_state
	d.allow == false
	d.reason == "NOT_GRANTED"
}

test_agent_without_grants_is_not_granted if {
	d := authz.decision with input as {"agent": "idle", "tool": "fs::read_file"}
		with data.toolgate.agents as agents
		with data.toolgate.profile as "strict"
		with data.toolgate.graph_state as graph_state
	d.reason == "NOT_GRANTED"
}

test_unknown_agent_is_denied if {
	d := authz.decision with input as {"agent": "nobody", "tool": "fs::read_file"}
		with data.toolgate.agents as agents
		with data.toolgate.profile as "strict"
		with data.toolgate.graph_state as graph_state
	d.allow == false
	d.reason == "AGENT_NOT_FOUND"
}

test_missing_input_is_denied if {
	d := authz.decision with input as {}
		with data.toolgate.agents as agents
		with data.toolgate.profile as "strict"
		with data.toolgate.graph_state as graph_state
	d.allow == false
}

# Signs on the connectome's invoke edges (written by a consumer's sign policy).
tools := {
	"fs::read_file": {"server": "fs", "name": "read_file"},
	"fs::write_file": {"server": "fs", "name": "write_file"},
	"odd/srv::a%b": {"server": "odd/srv", "name": "a%b"},
}

signed_agents := {"planner": {"tools": {
	"fs::read_file": {"allow": true, "decision": "eligible", "reason": null, "risk_score": 0},
	"fs::write_file": {"allow": false, "decision": "rejected", "reason": "DENY_VIOLATION", "risk_score": 1},
	"odd/srv::a%b": {"allow": true, "decision": "eligible", "reason": null, "risk_score": 0},
}}}

edges(sign) := [
	{"from": "fs/server", "to": "fs/tool/read_file", "kind": "invoke", "provenance": "declared", "sign": sign},
	{"from": "fs/server", "to": "fs/resource/x", "kind": "read", "provenance": "declared", "sign": "deny"},
]

signed_decision(tool, sign) := d if {
	d := authz.decision with input as {"agent": "planner", "tool": tool}
		with data.toolgate.agents as signed_agents
		with data.toolgate.tools as tools
		with data.toolgate.connectome.edges as edges(sign)
		with data.toolgate.profile as "strict"
		with data.toolgate.graph_state as graph_state
}

test_sign_deny_refuses_an_eligible_tool if {
	d := signed_decision("fs::read_file", "deny")
	d.allow == false
	d.reason == "SIGN_DENY"
}

test_sign_hold_refuses_an_eligible_tool if {
	d := signed_decision("fs::read_file", "hold")
	d.allow == false
	d.reason == "SIGN_HOLD"
}

test_allow_ungoverned_and_unset_signs_change_nothing if {
	every s in ["allow", "ungoverned", "unset"] {
		d := signed_decision("fs::read_file", s)
		d.allow == true
		d.reason == null
	}
}

test_deny_outranks_hold_on_the_same_tool if {
	d := authz.decision with input as {"agent": "planner", "tool": "fs::read_file"}
		with data.toolgate.agents as signed_agents
		with data.toolgate.tools as tools
		with data.toolgate.connectome.edges as array.concat(edges("hold"), [{"from": "host/process/p", "to": "fs/tool/read_file", "kind": "invoke", "provenance": "declared", "sign": "deny"}])
		with data.toolgate.profile as "strict"
		with data.toolgate.graph_state as graph_state
	d.reason == "SIGN_DENY"
}

test_a_compiled_rejection_keeps_its_reason_under_a_sign if {
	d := signed_decision("fs::write_file", "deny")
	d.allow == false
	d.reason == "DENY_VIOLATION"
}

test_a_sign_on_a_read_edge_does_not_touch_tools if {
	d := signed_decision("fs::read_file", "unset")
	d.allow == true
}

test_escaped_tool_node_ids_are_matched if {
	d := authz.decision with input as {"agent": "planner", "tool": "odd/srv::a%b"}
		with data.toolgate.agents as signed_agents
		with data.toolgate.tools as tools
		with data.toolgate.connectome.edges as [{"from": "odd%2Fsrv/server", "to": "odd%2Fsrv/tool/a%25b", "kind": "invoke", "provenance": "declared", "sign": "hold"}]
		with data.toolgate.profile as "strict"
		with data.toolgate.graph_state as graph_state
	d.reason == "SIGN_HOLD"
}
