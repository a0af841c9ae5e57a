# The first branches that answer the common case (envoy.ordinary_call, kong.ordinary_call,
# core.identify's single source, core.verdict's tools/call of a catalog key) give what the general
# rules give: each test answers a set of requests both ways, the second with the first branch
# switched off.
package toolgate.gateways.first_branch_test

import data.toolgate.gateways.core
import data.toolgate.gateways.core_test
import data.toolgate.gateways.envoy
import data.toolgate.gateways.kong
import rego.v1

rpc(method, params) := {"jsonrpc": "2.0", "id": 7, "method": method, "params": params}

envoy_request(hdrs, body) := {
	"attributes": {"request": {"http": {
		"method": "POST",
		"headers": object.union({"content-type": "application/json"}, hdrs),
		"body": json.marshal(body),
	}}},
	"parsed_body": body,
	"truncated_body": false,
}

envoy_requests := [
	envoy_request({"x-agent": "planner"}, rpc("tools/call", {"name": "read_file"})),
	envoy_request({"x-agent": "planner", "mcp-method": "tools/call", "mcp-name": "fs::write_file"}, rpc("tools/call", {"name": "fs::write_file"})),
	envoy_request({"x-agent": "planner", "mcp-name": "stat"}, rpc("tools/call", {"name": "fs::stat"})),
	envoy_request({"x-agent": "planner", "mcp-method": "tools/list"}, rpc("tools/call", {"name": "read_file"})),
	envoy_request({"x-agent": "idle"}, rpc("tools/list", {})),
	envoy_request({"x-agent": "planner"}, rpc("tools/call", {"name": "read_file", "_meta": {"io.toolgate/tool_contract_digest": "zz"}})),
	envoy_request({"x-agent": "planner"}, rpc("tools/call", {"name": 3})),
	envoy_request({"x-agent": "planner", "x-envoy-auth-partial-body": "true"}, rpc("tools/call", {"name": "read_file"})),
	envoy_request({"x-agent": "nobody"}, rpc("tools/call", {"name": "read_file"})),
	envoy_request({}, rpc("tools/call", {"name": "read_file"})),
	envoy_request({"authorization": "Bearer good"}, rpc("ping", {})),
	envoy_request({"authorization": "Bearer forged"}, rpc("tools/call", {"name": "read_file"})),
]

envoy_verdict(inp, fast) := v if {
	fast
	v := envoy.verdict with input as inp
		with data.toolgate.agents as core_test.agents
		with data.toolgate.tools as core_test.tools
		with data.toolgate.tools_by_name as core_test.by_name
		with data.toolgate.identity as core_test.identity
		with data.toolgate.signs_by_tool as core_test.signs
		with io.jwt.decode_verify as core_test.mock_verify
} else := v if {
	v := envoy.verdict with input as inp
		with envoy.ordinary_call as false
		with data.toolgate.agents as core_test.agents
		with data.toolgate.tools as core_test.tools
		with data.toolgate.tools_by_name as core_test.by_name
		with data.toolgate.identity as core_test.identity
		with data.toolgate.signs_by_tool as core_test.signs
		with io.jwt.decode_verify as core_test.mock_verify
}

test_envoy_ordinary_call_answers_as_the_request_checks if {
	every inp in envoy_requests {
		envoy_verdict(inp, true) == envoy_verdict(inp, false)
	}
}

test_envoy_ordinary_call_is_taken if {
	c := envoy.ordinary_call with input as envoy_requests[1]
	c == {"method": "tools/call", "name": "fs::write_file", "contract": null}
	not envoy.ordinary_call with input as envoy_requests[3]
	not envoy.ordinary_call with input as envoy_requests[7]
}

kong_identity := {"by_gateway": {"kong": {"sources": [{"kind": "kong_consumer", "field": "username", "gateways": ["kong"]}], "headers": []}}, "principals": {}}

kong_request(hdrs, body, username) := {
	"request": {"http": {"method": "POST", "headers": hdrs, "parsed_body": body}},
	"consumer": {"id": "c1", "username": username},
}

kong_requests := [
	kong_request({}, rpc("tools/call", {"name": "read_file"}), "planner"),
	kong_request({"mcp-name": "read_file"}, rpc("tools/call", {"name": "read_file"}), "planner"),
	kong_request({"mcp-name": ["read_file", "read_file"]}, rpc("tools/call", {"name": "read_file"}), "planner"),
	kong_request({"mcp-method": "tools/call"}, rpc("tools/call", {"name": "fs::write_file"}), "planner"),
	kong_request({}, rpc("tools/call", {"name": "stat"}), "planner"),
	kong_request({}, rpc("tools/call", {"name": "read_file"}), ""),
	kong_request({}, rpc("resources/read", {"uri": "file:///x"}), "planner"),
]

kong_verdict(inp, fast) := v if {
	fast
	v := kong.verdict with input as inp
		with data.toolgate.agents as core_test.agents
		with data.toolgate.tools as core_test.tools
		with data.toolgate.tools_by_name as core_test.by_name
		with data.toolgate.identity as kong_identity
		with data.toolgate.signs_by_tool as core_test.signs
} else := v if {
	v := kong.verdict with input as inp
		with kong.ordinary_call as false
		with data.toolgate.agents as core_test.agents
		with data.toolgate.tools as core_test.tools
		with data.toolgate.tools_by_name as core_test.by_name
		with data.toolgate.identity as kong_identity
		with data.toolgate.signs_by_tool as core_test.signs
}

test_kong_ordinary_call_answers_as_the_request_checks if {
	every inp in kong_requests {
		kong_verdict(inp, true) == kong_verdict(inp, false)
	}
}

# core.verdict's first branch against the general one: call_verdict, shaped as verdict shapes it.
general_verdict(ident, method, name, contract) := {"allow": v.allow, "reason": v.reason, "agent": ident.agent, "method": method, "tool": v.tool} if {
	v := core.call_verdict(ident, method, name, contract)
}

test_verdict_first_branch_answers_as_call_verdict if {
	every agent in ["planner", "idle", "nobody"] {
		every name in ["fs::read_file", "fs::write_file", "fs::stat", "s3::stat", "fs::none", "read_file", "stat"] {
			ident := {"ok": true, "agent": agent, "reason": null}
			v := core.verdict(ident, "tools/call", name, null) with data.toolgate.agents as core_test.agents
				with data.toolgate.tools as core_test.tools
				with data.toolgate.tools_by_name as core_test.by_name
				with data.toolgate.signs_by_tool as core_test.signs
			g := general_verdict(ident, "tools/call", name, null) with data.toolgate.agents as core_test.agents
				with data.toolgate.tools as core_test.tools
				with data.toolgate.tools_by_name as core_test.by_name
				with data.toolgate.signs_by_tool as core_test.signs
			v == g
		}
	}
}

# core.identify's first branch (one source) against identity_verdict over the same claims.
test_identify_first_branch_answers_as_identity_verdict if {
	srcs := [{"kind": "header", "name": "x-agent", "gateways": ["envoy"]}]
	ids := {"by_gateway": {"envoy": {"sources": srcs, "headers": ["x-agent"]}}, "principals": {"svc-planner": "planner"}}
	every value in ["planner", "svc-planner", "", 7] {
		proofs := {"headers": {"x-agent": value}}
		fast := core.identify("envoy", proofs) with data.toolgate.identity as ids
		claims := [c | some src in srcs; c := core.claim(src.kind, src, proofs)]
		general := core.identity_verdict(claims) with data.toolgate.identity as ids
		fast == general
	}
}
