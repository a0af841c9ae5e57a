# The first branches that answer the common case (envoy.ordinary_call, kong.ordinary_call, each
# entrypoint's identity and core.identify for a single source, core.claim's bearer token,
# core.verdict's tools/call of a catalog key) give what the general rules give: each test answers a
# set of requests both ways, the second with the first branch switched off.
package toolgate.gateways.first_branch_test

import data.toolgate.gateways.contextforge
import data.toolgate.gateways.core
import data.toolgate.gateways.core_test
import data.toolgate.gateways.docker
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
	object.remove(envoy_request({"x-agent": "planner"}, rpc("tools/call", {"name": "read_file"})), {"truncated_body"}),
	object.union(envoy_request({"x-agent": "planner"}, rpc("tools/call", {"name": "read_file"})), {"truncated_body": true}),
	envoy_request({"x-agent": "planner", "x-envoy-auth-partial-body": "false"}, rpc("tools/call", {"name": "read_file"})),
	object.union(envoy_request({"x-agent": "planner"}, rpc("tools/call", {"name": "read_file"})), {"attributes": {"request": {"http": {"body": 5}}}}),
	object.union(envoy_request({"x-agent": "planner"}, rpc("tools/call", {"name": "read_file"})), {"attributes": {"metadataContext": {"filterMetadata": {"envoy.filters.http.mcp": {"method": "tools/call", "params": {"name": "write_file"}}}}}}),
	object.union(envoy_request({"x-agent": "planner"}, rpc("tools/call", {"name": "read_file"})), {"attributes": {"metadata_context": {"filter_metadata": {"envoy.filters.http.mcp": {"method": "tools/list"}}}}}),
	object.union(envoy_request({"x-agent": "planner"}, rpc("tools/call", {"name": "stat"})), {"attributes": {"contextExtensions": {"toolgate_server": "s3"}}}),
	envoy_request({"x-agent": "planner"}, {"jsonrpc": "2.0", "id": 8, "method": "ping"}),
	envoy_request({"x-agent": "planner"}, {"jsonrpc": "2.0", "id": [1], "method": "tools/call", "params": {"name": "fs::write_file"}}),
	envoy_request({"x-agent": "planner"}, {"jsonrpc": "2.0", "id": "a", "method": "tools/call", "params": ["read_file"]}),
	envoy_request({"x-agent": "planner"}, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": "read_file"}),
	envoy_request({"x-agent": "planner"}, {"jsonrpc": "2.0", "id": 3, "method": 7, "params": {"name": "read_file"}}),
	envoy_request({"x-agent": "planner", "mcp-method": "tools/list"}, {"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {}}),
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

# The whole answer too: the response a gateway gets is the same with the first branch off.
test_envoy_response_answers_as_the_request_checks if {
	every inp in envoy_requests {
		r := envoy.response with input as inp
			with data.toolgate.agents as core_test.agents
			with data.toolgate.tools as core_test.tools
			with data.toolgate.tools_by_name as core_test.by_name
			with data.toolgate.identity as core_test.identity
			with data.toolgate.signs_by_tool as core_test.signs
			with io.jwt.decode_verify as core_test.mock_verify
		g := envoy.response with input as inp
			with envoy.ordinary_call as false
			with data.toolgate.agents as core_test.agents
			with data.toolgate.tools as core_test.tools
			with data.toolgate.tools_by_name as core_test.by_name
			with data.toolgate.identity as core_test.identity
			with data.toolgate.signs_by_tool as core_test.signs
			with io.jwt.decode_verify as core_test.mock_verify
		r == g
	}
}

test_envoy_ordinary_call_is_taken if {
	c := envoy.ordinary_call with input as envoy_requests[1] with data.toolgate.identity as core_test.identity
	c == {"method": "tools/call", "name": "fs::write_file", "contract": null}
	not envoy.ordinary_call with input as envoy_requests[3] with data.toolgate.identity as core_test.identity
	not envoy.ordinary_call with input as envoy_requests[7] with data.toolgate.identity as core_test.identity
}

# envoy.identity's first branch (one JWT source on the Authorization header, decoded by
# core.bearer_principal) against core.identify over the same request, and core.claim's first
# branch against bearer_claim.
jwt_source := {"kind": "jwt", "from": "authorization", "claim": ["sub"], "verified_by": "gateway", "constraints": {}, "metadata_key": "jwt_payload", "gateways": ["envoy"]}

jwt_identity := {"by_gateway": {"envoy": {"sources": [jwt_source], "headers": ["authorization"]}}, "principals": {"svc-planner": "planner"}, "max_body_bytes": 4096}

token(payload) := concat(".", [base64url.encode_no_pad("{\"alg\":\"none\"}"), base64url.encode_no_pad(payload), "c2ln"])

authorizations := [
	concat(" ", ["Bearer", token("{\"sub\":\"planner\"}")]),
	concat(" ", ["bearer", token("{\"sub\":\"svc-planner\"}")]),
	concat(" ", ["BEARER", token("{\"sub\":\"\"}")]),
	concat(" ", ["Bearer", token("{\"sub\":7}")]),
	concat(" ", ["Bearer", token("{\"other\":1}")]),
	concat(" ", ["Bearer", token("[1]")]),
	concat(" ", ["Bearer", token("not json")]),
	concat(" ", ["Bearer", token("{\"sub\":{\"x\":1}}")]),
	concat(" ", ["Bearer", "a.b"]),
	concat(" ", ["Bearer", "a.!!.c"]),
	concat(" ", ["Basic", token("{\"sub\":\"planner\"}")]),
	concat("  ", ["Bearer", token("{\"sub\":\"planner\"}")]),
	concat(" ", ["Bearer", token("{\"sub\":\"planner\"}"), "x"]),
	"",
]

test_envoy_identity_first_branch_answers_as_identify if {
	every h in authorizations {
		inp := envoy_request({"authorization": h}, rpc("tools/call", {"name": "read_file"}))
		fast := envoy.identity with input as inp with data.toolgate.identity as jwt_identity
		general := core.identify("envoy", envoy.proofs) with input as inp with data.toolgate.identity as jwt_identity
		fast == general
	}
}

test_bearer_principal_answers_as_bearer_claim if {
	every h in authorizations {
		core.claim("jwt", jwt_source, {"headers": {"authorization": h}}) == core.bearer_claim(jwt_source, h)
	}
}

kong_identity := {"by_gateway": {"kong": {"sources": [{"kind": "kong_consumer", "field": "username", "gateways": ["kong"]}], "headers": []}}, "principals": {"svc-planner": "planner"}, "max_body_bytes": 4096}

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
	kong_request({}, rpc("tools/call", {"name": "read_file"}), "svc-planner"),
	kong_request({}, rpc("tools/call", {"name": "read_file"}), 7),
	object.remove(kong_request({}, rpc("tools/call", {"name": "read_file"}), "planner"), {"consumer"}),
	object.union(kong_request({}, rpc("tools/call", {"name": "read_file"}), "planner"), {"request": {"http": {"body_size": 5000}}}),
	object.union(kong_request({}, rpc("tools/call", {"name": "read_file"}), "planner"), {"request": {"http": {"body": "{}"}}}),
	{"request": {"http": {"method": "POST", "parsed_body": rpc("tools/call", {"name": "read_file"})}}, "consumer": {"username": "planner"}},
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

test_kong_response_answers_as_the_request_checks if {
	every inp in kong_requests {
		r := kong.response with input as inp
			with data.toolgate.agents as core_test.agents
			with data.toolgate.tools as core_test.tools
			with data.toolgate.tools_by_name as core_test.by_name
			with data.toolgate.identity as kong_identity
			with data.toolgate.signs_by_tool as core_test.signs
		g := kong.response with input as inp
			with kong.ordinary_call as false
			with data.toolgate.agents as core_test.agents
			with data.toolgate.tools as core_test.tools
			with data.toolgate.tools_by_name as core_test.by_name
			with data.toolgate.identity as kong_identity
			with data.toolgate.signs_by_tool as core_test.signs
		r == g
	}
}

test_kong_first_branches_are_taken if {
	c := kong.ordinary_call with input as kong_requests[0] with data.toolgate.identity as kong_identity
	c == {"method": "tools/call", "name": "read_file", "contract": null}
	i := kong.identity with input as kong_requests[7] with data.toolgate.identity as kong_identity with core.identify as "general"
	i == {"ok": true, "agent": "planner", "reason": null}
}

# kong.identity's first branch (one kong_consumer source) against core.identify.
test_kong_identity_first_branch_answers_as_identify if {
	every inp in kong_requests {
		fast := kong.identity with input as inp with data.toolgate.identity as kong_identity
		general := core.identify("kong", kong.proofs) with input as inp with data.toolgate.identity as kong_identity
		fast == general
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

test_envoy_identity_first_branch_is_taken if {
	inp := envoy_request({"authorization": authorizations[1]}, rpc("tools/call", {"name": "read_file"}))
	v := envoy.identity with input as inp with data.toolgate.identity as jwt_identity with core.identify as "general"
	v == {"ok": true, "agent": "planner", "reason": null}
}

# ContextForge's and Docker's identity first branches (one contextforge_user / docker_interceptor
# source) against core.identify, for callers that are proven, mapped, empty, "none", not strings or
# missing.
callers := ["planner", "svc-planner", "", "none", 7, null, {"a": 1}]

cf_identity := {"by_gateway": {"contextforge": {"sources": [{"kind": "contextforge_user", "context_key": null, "gateways": ["contextforge"]}], "headers": []}}, "principals": {"svc-planner": "planner"}}

docker_identity := {"by_gateway": {"docker": {"sources": [{"kind": "docker_interceptor", "gateways": ["docker"]}], "headers": []}}, "principals": {"svc-planner": "planner"}}

test_contextforge_identity_first_branch_answers_as_identify if {
	inputs := array.concat([{"kind": "tool_pre_invoke", "user": u, "payload": {"name": "read_file"}} | some u in callers], [{"kind": "tool_pre_invoke", "payload": {"name": "read_file"}}])
	every inp in inputs {
		fast := contextforge.identity with input as inp with data.toolgate.identity as cf_identity
		general := core.identify("contextforge", contextforge.proofs) with input as inp with data.toolgate.identity as cf_identity
		fast == general
	}
	taken := contextforge.identity with input as inputs[1] with data.toolgate.identity as cf_identity with core.identify as "general"
	taken == {"ok": true, "agent": "planner", "reason": null}
}

test_docker_identity_first_branch_answers_as_identify if {
	inputs := array.concat([{"agent": a, "request": {"Params": {"name": "read_file"}}} | some a in callers], [{"request": {"Params": {"name": "read_file"}}}])
	every inp in inputs {
		fast := docker.identity with input as inp with data.toolgate.identity as docker_identity
		general := core.identify("docker", docker.proofs) with input as inp with data.toolgate.identity as docker_identity
		fast == general
	}
	taken := docker.identity with input as inputs[0] with data.toolgate.identity as docker_identity with core.identify as "general"
	taken == {"ok": true, "agent": "planner", "reason": null}
}
