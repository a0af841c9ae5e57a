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
