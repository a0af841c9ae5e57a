# Envoy ext_authz, as opa-envoy-plugin (and through it Envoy AI Gateway and agentgateway's
# extAuthz) sends it: the CheckRequest as JSON (protomap, JSON field names: attributes.request.http
# {method, path, headers, body}, attributes.source.principal, attributes.metadataContext
# .filterMetadata) plus parsed_body, truncated_body and source_principal (opa-envoy-plugin
# envoyauth/request.go RequestToInput).
#
#   plugin config:  path: toolgate/gateways/envoy/response
#   answer:         {allowed, headers, http_status, body, dynamic_metadata} (envoyauth/response.go)
#
# The call is the JSON-RPC body (parsed_body, else the raw body when it is valid JSON). The
# MCP 2026-07-28 Mcp-Method / Mcp-Name headers and the Envoy MCP filter's dynamic metadata
# (filterMetadata["envoy.filters.http.mcp"]) are cross-checked against it: any that disagrees is
# HEADER_MISMATCH. Envoy joins a repeated header's values with ",", so two mcp-name headers never
# equal the body's name. An ext_authz route can name the MCP server with the context extension
# toolgate_server; without it a bare tool name must be exposed by exactly one server.
package toolgate.gateways.envoy

import data.toolgate.gateways.core
import rego.v1

http := input.attributes.request.http

headers := h if {
	is_object(http.headers)
	h := http.headers
} else := {}

# A filter's dynamic metadata, under the proto JSON name or the original field name; null when
# neither is given.
metadata(ns) := object.get(input, ["attributes", "metadataContext", "filterMetadata", ns], object.get(input, ["attributes", "metadata_context", "filter_metadata", ns], null))

mcp_metadata := md if {
	md := metadata("envoy.filters.http.mcp")
	is_object(md)
} else := {}

# What the request proves about its caller, in one rule (each rule is a cost of its own in OPA):
# the identity sources' headers, the peer certificate's principal, jwt_authn's verified payloads.
proofs := {
	"headers": {k: v | some k in core.identity_headers("envoy"); v := input.attributes.request.http.headers[k]},
	"principal": object.get(input, ["attributes", "source", "principal"], object.get(input, "source_principal", null)),
	"jwt_metadata": metadata("envoy.filters.http.jwt_authn"),
}

raw_body := b if {
	is_string(http.body)
	http.body != ""
	b := http.body
} else := b if {
	is_string(http.rawBody)
	b := base64.decode(http.rawBody)
}

body := input.parsed_body if {
	input.parsed_body != null
} else := json.unmarshal(raw_body) if {
	count(raw_body) <= core.max_body
	json.is_valid(raw_body)
}

# The ordinary request, as opa-envoy-plugin sends an MCP tool call: a complete POST whose parsed
# body, within the size limit, is one JSON-RPC 2.0 tools/call request naming a tool, whose
# Mcp-Method / Mcp-Name headers, when sent, agree with it, and with no MCP filter metadata to
# compare. It passes every check of request_error, so its call {method, name, contract} is read
# here, in one rule reading each value once by direct lookup (in OPA each rule and function
# evaluated costs a cache entry and bindings of its own). Anything else, including other methods
# and a body given only as text, goes through request_error and the rules below, which answer the
# same for it.
ordinary_call := {"method": "tools/call", "name": n, "contract": contract} if {
	req := input.attributes.request.http
	req.method == "POST"
	input.truncated_body == false
	hs := req.headers
	is_object(hs)
	not hs["x-envoy-auth-partial-body"]
	not req.rawBody
	is_string(req.body)
	count(req.body) <= data.toolgate.identity.max_body_bytes
	b := input.parsed_body
	b.jsonrpc == "2.0"
	b.method == "tools/call"
	p := b.params
	n := p.name
	is_string(n)
	object.get(hs, "mcp-method", "tools/call") == "tools/call"
	object.get(hs, "mcp-name", n) == n
	not input.attributes.metadataContext.filterMetadata["envoy.filters.http.mcp"]
	not input.attributes.metadata_context.filter_metadata["envoy.filters.http.mcp"]
	contract := core.contract_in(p)
}

# The caller, resolved once. The first branch is the common configuration, one JWT source read
# from the Authorization header and decoded here; core.identify decides every other (and would
# answer the same for it).
identity := {"ok": true, "agent": core.agent_of(p), "reason": null} if {
	[src] := data.toolgate.identity.by_gateway.envoy.sources
	src.kind == "jwt"
	p := core.bearer_principal(src, input.attributes.request.http.headers.authorization)
} else := core.identify("envoy", proofs)

# Why the request cannot be decided as one MCP call, or undefined.
request_error := "NOT_EXT_AUTHZ" if {
	not http
} else := "NOT_EXT_AUTHZ" if {
	# Checked before anything reads it: object.get on another type fails, which under strict
	# builtin errors is an evaluation error, and a gateway that fails open allows on one.
	not is_object(http)
} else := "HTTP_METHOD_NOT_ALLOWED" if {
	not object.get(http, "method", null) in {"POST", "GET", "DELETE"}
} else := "BODY_TRUNCATED" if {
	http.method == "POST"
	truncated
} else := "BODY_TOO_LARGE" if {
	http.method == "POST"
	count(raw_body) > core.max_body
} else := "BODY_MISSING" if {
	http.method == "POST"
	not raw_body
	not input.parsed_body
} else := "BODY_NOT_JSON" if {
	http.method == "POST"
	not body
} else := reason if {
	http.method == "POST"
	not one_request
	reason := core.rpc_error(body_shape)
} else := "HEADER_MISMATCH" if {
	http.method == "POST"
	header_mismatch
}

truncated if input.truncated_body == true

truncated if headers["x-envoy-auth-partial-body"] == "true"

# The common body, one JSON-RPC 2.0 request whose params are an object, passes every check of
# core.rpc_error; telling it apart first spares building body_shape on the allow path.
one_request if {
	is_object(body)
	body.jsonrpc == "2.0"
	is_string(body.method)
	is_object(object.get(body, "params", {}))
}

# What core.rpc_error needs to know about the body, as booleans.
body_object := body if {
	is_object(body)
} else := {}

body_shape := {
	"batch": is_array(body),
	"object": is_object(body),
	"v2": object.get(body_object, "jsonrpc", null) == "2.0",
	"has_method": "method" in object.keys(body_object),
	"reply": count({k | some k in ["result", "error"]; k in object.keys(body_object)}) > 0,
	"method_string": is_string(object.get(body_object, "method", null)),
	"params_object": is_object(object.get(body_object, "params", {})),
}

params := p if {
	p := body.params
	is_object(p)
} else := {}

method := body.method if http.method == "POST"

method := concat(" ", ["HTTP", http.method]) if http.method in {"GET", "DELETE"}

name := n if {
	n := core.target_name(method, params)
} else := null

contract := core.contract_in(params)

header_mismatch if {
	m := headers["mcp-method"]
	m != body.method
}

header_mismatch if {
	n := headers["mcp-name"]
	not n == name
}

header_mismatch if {
	m := mcp_metadata.method
	m != body.method
}

header_mismatch if {
	some k in ["name", "uri"]
	v := mcp_metadata.params[k]
	not v == params[k]
}

# A bare name qualified by the route's toolgate_server context extension, when it has one.
qualified(n) := concat("::", [server, n]) if {
	server := input.attributes.contextExtensions.toolgate_server
	is_string(server)
	is_string(n)
	not contains(n, "::")
} else := n

verdict := core.verdict(identity, "tools/call", qualified(c.name), c.contract) if {
	c := ordinary_call
} else := core.refused(request_error) if {
	request_error
} else := core.verdict(identity, method, qualified(name), contract) if {
	method
} else := core.refused("INTERNAL_UNDEFINED")

# The HTTP status and JSON-RPC error code of each denial the request checks or the identity
# answer: 401 no proven identity, 400 a request that is not one MCP call, 405 / 413 as named;
# -32700 parse error, -32600 invalid request, -32020 MCP HeaderMismatch, -32001 refused. Any other
# reason is a decided denial, 403 and -32001. (A table read once per denial rather than functions
# of the reason: OPA pays for each call it evaluates.)
denial_codes := {
	"AGENT_UNAUTHENTICATED": [401, -32001],
	"IDENTITY_INVALID": [401, -32001],
	"IDENTITY_CONFLICT": [401, -32001],
	"HTTP_METHOD_NOT_ALLOWED": [405, -32600],
	"NOT_EXT_AUTHZ": [400, -32600],
	"BODY_TOO_LARGE": [413, -32600],
	"BODY_TRUNCATED": [413, -32600],
	"BODY_MISSING": [400, -32600],
	"BODY_NOT_JSON": [400, -32700],
	"BODY_NOT_JSON_RPC": [400, -32600],
	"BATCH_NOT_ALLOWED": [400, -32600],
	"JSONRPC_RESPONSE": [400, -32600],
	"METHOD_MISSING": [400, -32600],
	"PARAMS_NOT_OBJECT": [400, -32600],
	"HEADER_MISMATCH": [400, -32020],
	"NAME_MISSING": [400, -32600],
}

# The request's JSON-RPC id when it is a scalar, else null. parsed_body is the body whenever it is
# given, so the common id, a number in it, is read first, without evaluating body.
rpc_id := id if {
	id := input.parsed_body.id
	is_number(id)
} else := id if {
	id := body.id
	not is_object(id)
	not is_array(id)
} else := null

# What a later filter may read of the verdict v: the verdict without allow, and for an allowed
# tools/list the tools the agent may see. (A denial's is the verdict without allow, written in
# place.)
dynamic_metadata(v) := {"agent": v.agent, "method": v.method, "tool": v.tool, "reason": v.reason, "visible_tools": core.visible_for(v.agent)} if {
	v.allow == true
	v.method == "tools/list"
} else := object.remove(v, {"allow"})

default response := {
	"allowed": false,
	"headers": {"x-toolgate-decision": "deny", "x-toolgate-reason": "INTERNAL_UNDEFINED"},
	"http_status": 403,
	"body": "{\"error\":{\"code\":-32001,\"message\":\"toolgate denied the request: INTERNAL_UNDEFINED\"},\"id\":null,\"jsonrpc\":\"2.0\"}",
}

# The verdict is read once, into v, for each branch.
response := {
	"allowed": true,
	"headers": {"x-toolgate-decision": "allow", "x-toolgate-agent": v.agent},
	"dynamic_metadata": {"toolgate": dynamic_metadata(v)},
} if {
	v := verdict
	v.allow == true
} else := {
	"allowed": false,
	"headers": {"x-toolgate-decision": "deny", "x-toolgate-reason": reason},
	"http_status": status,
	"body": json.marshal({
		"jsonrpc": "2.0",
		"id": rpc_id,
		"error": {
			"code": code,
			"message": concat(": ", ["toolgate denied the request", reason]),
			"data": {"reason": reason, "tool": v.tool, "method": v.method},
		},
	}),
	"dynamic_metadata": {"toolgate": object.remove(v, {"allow"})},
} if {
	v := verdict
	reason := v.reason
	[status, code] := object.get(denial_codes, reason, [403, -32001])
}
