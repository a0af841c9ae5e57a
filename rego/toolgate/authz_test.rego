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

# Signs, as the compile indexes them per tool (data.toolgate.signs_by_tool) from the connectome's
# invoke edges (written by a consumer's sign policy).
signed_agents := {"planner": {"tools": {
	"fs::read_file": {"allow": true, "decision": "eligible", "reason": null, "risk_score": 0},
	"fs::write_file": {"allow": false, "decision": "rejected", "reason": "DENY_VIOLATION", "risk_score": 1},
	"fs::stat": {"allow": true, "decision": "eligible", "reason": null, "risk_score": 0},
}}}

signed_decision_with(tool, index) := d if {
	d := authz.decision with input as {"agent": "planner", "tool": tool}
		with data.toolgate.agents as signed_agents
		with data.toolgate.signs_by_tool as index
		with data.toolgate.profile as "strict"
		with data.toolgate.graph_state as graph_state
}

signed_decision(tool, deny, hold) := signed_decision_with(tool, {tool: {"deny": deny, "hold": hold}})

test_sign_deny_refuses_an_eligible_tool if {
	d := signed_decision("fs::read_file", true, false)
	d.allow == false
	d.reason == "SIGN_DENY"
}

test_sign_hold_refuses_an_eligible_tool if {
	d := signed_decision("fs::read_file", false, true)
	d.allow == false
	d.reason == "SIGN_HOLD"
}

test_deny_outranks_hold_on_the_same_tool if {
	d := signed_decision("fs::read_file", true, true)
	d.allow == false
	d.reason == "SIGN_DENY"
}

test_an_entry_with_neither_sign_changes_nothing if {
	d := signed_decision("fs::read_file", false, false)
	d.allow == true
	d.reason == null
}

test_no_index_entry_changes_nothing if {
	d := signed_decision_with("fs::read_file", {})
	d.allow == true
	d.reason == null
}

test_a_sign_on_another_tool_does_not_touch_this_one if {
	d := signed_decision_with("fs::read_file", {"fs::stat": {"deny": true, "hold": true}})
	d.allow == true
	d.reason == null
	e := signed_decision_with("fs::stat", {"fs::stat": {"deny": false, "hold": true}})
	e.allow == false
	e.reason == "SIGN_HOLD"
}

test_a_compiled_rejection_keeps_its_reason_under_a_sign if {
	d := signed_decision("fs::write_file", true, true)
	d.allow == false
	d.reason == "DENY_VIOLATION"
}

test_a_sign_does_not_grant_an_ungranted_tool if {
	d := signed_decision("fs::delete", false, false)
	d.allow == false
	d.reason == "NOT_GRANTED"
}

test_the_decision_does_not_read_the_edge_list if {
	# Edges alone (no index entry) are not consulted: the compile's index is the one source.
	d := authz.decision with input as {"agent": "planner", "tool": "fs::read_file"}
		with data.toolgate.agents as signed_agents
		with data.toolgate.signs_by_tool as {}
		with data.toolgate.connectome.edges as [{"from": "fs/server", "to": "fs/tool/read_file", "kind": "invoke", "provenance": "declared", "sign": "deny"}]
		with data.toolgate.profile as "strict"
		with data.toolgate.graph_state as graph_state
	d.allow == true
}
