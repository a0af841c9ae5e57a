package toolgate.gateways.core_test

import data.toolgate.authz
import data.toolgate.gateways.core
import data.toolgate.gateways.envoy
import rego.v1

agents := {
	"planner": {"tools": {
		"fs::read_file": {"allow": true, "decision": "eligible", "reason": null, "risk_score": 0},
		"fs::write_file": {"allow": false, "decision": "rejected", "reason": "DENY_VIOLATION", "risk_score": 1},
		"fs::stat": {"allow": true, "decision": "eligible", "reason": null, "risk_score": 0},
	}},
	"idle": {"tools": {}},
}

tools := {
	"fs::read_file": {"server": "fs", "name": "read_file", "tool_contract_digest": "aa"},
	"fs::write_file": {"server": "fs", "name": "write_file", "tool_contract_digest": "bb"},
	"fs::stat": {"server": "fs", "name": "stat", "tool_contract_digest": "cc"},
	"s3::stat": {"server": "s3", "name": "stat", "tool_contract_digest": "dd"},
}

by_name := {"read_file": ["fs::read_file"], "write_file": ["fs::write_file"], "stat": ["fs::stat", "s3::stat"]}

signs := {"fs::stat": {"deny": false, "hold": true}}

envoy_sources := [
	{"kind": "header", "name": "x-agent", "gateways": ["envoy"]},
	{"kind": "jwt", "from": "authorization", "claim": ["sub"], "verified_by": "opa", "constraints": {"cert": "jwks"}, "metadata_key": "jwt_payload", "gateways": ["envoy"]},
]

identity := {
	"sources": envoy_sources,
	"by_gateway": {"envoy": {"sources": envoy_sources, "headers": ["authorization", "x-agent"]}},
	"principals": {"svc-planner": "planner"},
	"max_body_bytes": 4096,
}

test_decide_agrees_with_decision if {
	every agent in ["planner", "idle", "nobody"] {
		every tool in ["fs::read_file", "fs::write_file", "fs::stat", "fs::none"] {
			d := authz.decision with input as {"agent": agent, "tool": tool}
				with data.toolgate.agents as agents
				with data.toolgate.signs_by_tool as signs
				with data.toolgate.profile as "strict"
				with data.toolgate.graph_state as {}
			f := authz.decide(agent, tool) with data.toolgate.agents as agents
				with data.toolgate.signs_by_tool as signs
			d.allow == f.allow
			d.reason == f.reason
		}
	}
}

test_visible_tools_are_the_allowed_ones if {
	v := authz.visible_tools with input as {"agent": "planner"}
		with data.toolgate.agents as agents
		with data.toolgate.signs_by_tool as signs
	v == ["fs::read_file"]
	w := authz.visible_tools with input as {"agent": "nobody"} with data.toolgate.agents as agents
	w == []
}

mock_verify(token, _) := [true, {}, {"sub": "svc-planner"}] if token == "good"

mock_verify(token, _) := [false, {}, {}] if token != "good"

call(name, hdrs) := {"attributes": {"request": {"http": {
	"method": "POST",
	"headers": object.union({"content-type": "application/json"}, hdrs),
	"body": json.marshal({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name}}),
}}}}

verdict_of(inp) := v if {
	v := envoy.verdict with input as inp
		with data.toolgate.agents as agents
		with data.toolgate.tools as tools
		with data.toolgate.tools_by_name as by_name
		with data.toolgate.identity as identity
		with data.toolgate.signs_by_tool as signs
		with io.jwt.decode_verify as mock_verify
}

test_verified_jwt_maps_principal_to_agent if {
	v := verdict_of(call("read_file", {"authorization": "Bearer good"}))
	v.allow == true
	v.agent == "planner"
	v.tool == "fs::read_file"
}

test_unverified_jwt_is_invalid if {
	v := verdict_of(call("read_file", {"authorization": "Bearer forged"}))
	v.reason == "IDENTITY_INVALID"
}

test_header_and_token_must_agree if {
	v := verdict_of(call("read_file", {"authorization": "Bearer good", "x-agent": "idle"}))
	v.reason == "IDENTITY_CONFLICT"
}

test_ambiguous_bare_name if {
	v := verdict_of(call("stat", {"x-agent": "planner"}))
	v.reason == "AMBIGUOUS_TOOL"
}

test_sign_hold_refuses_the_call if {
	v := verdict_of(call("fs::stat", {"x-agent": "planner"}))
	v.reason == "SIGN_HOLD"
}

test_body_over_the_limit if {
	big := json.marshal({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "read_file", "pad": concat("", [s | some _ in numbers.range(1, 4100); s := "x"])}})
	v := verdict_of({"attributes": {"request": {"http": {"method": "POST", "headers": {"x-agent": "planner"}, "body": big}}}})
	v.reason == "BODY_TOO_LARGE"
}

test_unknown_method_is_refused if {
	v := core.verdict({"ok": true, "agent": "planner"}, "logging/setLevel", null, null) with data.toolgate.agents as agents
	v.reason == "METHOD_NOT_ALLOWED"
}

test_contract_changed if {
	r := core.contract_reason("fs::read_file", {"digest": "zz"}) with data.toolgate.tools as tools
		with data.toolgate.contracts as {"fs::read_file": {}}
	r == "CONTRACT_CHANGED"
	not core.contract_reason("fs::read_file", {"digest": "aa"}) with data.toolgate.tools as tools
		with data.toolgate.contracts as {"fs::read_file": {}}
}

test_malformed_contract_is_refused if {
	r := core.contract_reason("fs::read_file", {"foo": 1}) with data.toolgate.tools as tools
		with data.toolgate.contracts as {"fs::read_file": {}}
	r == "CONTRACT_INVALID"
}

test_body_without_method if {
	shape := envoy.body_shape with input as {"parsed_body": {"jsonrpc": "2.0", "id": 1}}
	core.rpc_error(shape) == "METHOD_MISSING"
}

test_request_without_http_method if {
	v := verdict_of({"attributes": {"request": {"http": {"headers": {"x-agent": "planner"}}}}})
	v.reason == "HTTP_METHOD_NOT_ALLOWED"
	w := verdict_of({"hello": "world"})
	w.reason == "NOT_EXT_AUTHZ"
}

# The JSON-RPC code of each denial Envoy answers: -32700 parse error, -32020 HeaderMismatch,
# -32600 any other request the checks refuse, -32001 an unproven caller or a decided denial.
envoy_rpc_codes := {
	"AGENT_UNAUTHENTICATED": -32001,
	"IDENTITY_INVALID": -32001,
	"IDENTITY_CONFLICT": -32001,
	"AGENT_NOT_FOUND": -32001,
	"NOT_GRANTED": -32001,
	"DENY_VIOLATION": -32001,
	"CONTRACT_CHANGED": -32001,
	"METHOD_NOT_ALLOWED": -32001,
	"INTERNAL_UNDEFINED": -32001,
	"HTTP_METHOD_NOT_ALLOWED": -32600,
	"NOT_EXT_AUTHZ": -32600,
	"BODY_TOO_LARGE": -32600,
	"BODY_TRUNCATED": -32600,
	"BODY_MISSING": -32600,
	"BODY_NOT_JSON": -32700,
	"BODY_NOT_JSON_RPC": -32600,
	"BATCH_NOT_ALLOWED": -32600,
	"JSONRPC_RESPONSE": -32600,
	"METHOD_MISSING": -32600,
	"PARAMS_NOT_OBJECT": -32600,
	"HEADER_MISMATCH": -32020,
	"NAME_MISSING": -32600,
}

test_envoy_rpc_code_of_each_denial if {
	every reason, code in envoy_rpc_codes {
		[_, c] := object.get(envoy.denial_codes, reason, [403, -32001])
		c == code
	}
}

test_envoy_unauthenticated_denial_body if {
	r := envoy.response with input as call("read_file", {})
		with data.toolgate.agents as agents
		with data.toolgate.tools as tools
		with data.toolgate.tools_by_name as by_name
		with data.toolgate.identity as identity
	r.http_status == 401
	json.unmarshal(r.body).error.code == -32001
}
