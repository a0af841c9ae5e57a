# Kong Gateway's OPA plugin (developer.konghq.com/plugins/opa): input {request: {http: {method,
# path, headers, body, parsed_body}}, consumer, service, route, client_ip}. Needs
# include_parsed_json_body_in_opa_input (Kong 3.0+) or include_body_in_opa_input, and
# include_consumer_in_opa_input for consumer identity.
#
#   plugin config:  opa_path: /v1/data/toolgate/gateways/kong/response
#   answer:         {allow, status, headers, message} (custom status and message: Kong 3.2.1+)
#
# Kong gives a repeated header as an array of values: an mcp-name, mcp-method or identity header
# that is not one string is DUPLICATE_HEADER.
package toolgate.gateways.kong

import data.toolgate.gateways.core
import rego.v1

http := input.request.http

headers := h if {
	is_object(http.headers)
	h := http.headers
} else := {}

# What the request proves about its caller, in one rule: the identity sources' headers and the
# consumer Kong authenticated (null unless an object).
proofs := {
	"headers": {k: v | some k in core.identity_headers("kong"); v := input.request.http.headers[k]},
	"kong_consumer": object_or_null(object.get(input, "consumer", null)),
}

object_or_null(v) := v if {
	is_object(v)
} else := null

body := http.parsed_body if {
	http.parsed_body != null
} else := json.unmarshal(http.body) if {
	is_string(http.body)
	count(http.body) <= core.max_body
	json.is_valid(http.body)
}

# The ordinary request, as Kong's plugin sends an MCP call with include_parsed_json_body_in_opa_input:
# a POST whose parsed body, within the size limit, is one JSON-RPC 2.0 request, and whose
# Mcp-Method / Mcp-Name headers, when sent, are single values that agree with it. It passes every
# check of request_error, so its call {method, name, contract} is read here, in one rule reading
# each value once by direct lookup (in OPA each rule and function evaluated costs a cache entry and
# bindings of its own). A body or body_size of another type fails a comparison here and goes
# through request_error and the rules below, which answer the same for it.
ordinary_call := {"method": m, "name": n, "contract": core.contract_in(p)} if {
	req := input.request.http
	req.method == "POST"
	max := data.toolgate.identity.max_body_bytes
	body := object.get(req, "body", "")
	is_string(body)
	count(body) <= max
	object.get(req, "body_size", 0) <= max
	hs := req.headers
	is_object(hs)
	b := req.parsed_body
	b.jsonrpc == "2.0"
	m := b.method
	is_string(m)
	p := object.get(b, "params", {})
	is_object(p)
	n := core.target_name(m, p)
	object.get(hs, "mcp-method", m) == m
	is_string(object.get(hs, "mcp-name", ""))
	object.get(hs, "mcp-name", n) == n
}

# The caller, resolved once. The first branch is the common configuration, one kong_consumer
# source whose field names someone; core.identify decides every other (and would answer the same
# for it).
identity := {"ok": true, "agent": core.agent_of(p), "reason": null} if {
	[src] := data.toolgate.identity.by_gateway.kong.sources
	src.kind == "kong_consumer"
	p := input.consumer[src.field]
	is_string(p)
	p != ""
} else := core.identify("kong", proofs)

request_error := "NOT_KONG_REQUEST" if {
	not http
} else := "NOT_KONG_REQUEST" if {
	# Checked before anything reads it: object.get on another type fails, which under strict
	# builtin errors is an evaluation error, and a gateway that fails open allows on one.
	not is_object(http)
} else := "HTTP_METHOD_NOT_ALLOWED" if {
	not object.get(http, "method", null) in {"POST", "GET", "DELETE"}
} else := "DUPLICATE_HEADER" if {
	some k in ["mcp-method", "mcp-name"]
	v := headers[k]
	not is_string(v)
} else := "BODY_TOO_LARGE" if {
	http.method == "POST"
	is_string(http.body)
	count(http.body) > core.max_body
} else := "BODY_TOO_LARGE" if {
	http.method == "POST"
	is_number(http.body_size)
	http.body_size > core.max_body
} else := "BODY_MISSING" if {
	http.method == "POST"
	not http.body
	not http.parsed_body
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

verdict := core.verdict(identity, c.method, c.name, c.contract) if {
	c := ordinary_call
} else := core.refused(request_error) if {
	request_error
} else := core.verdict(identity, method, name, contract) if {
	method
} else := core.refused("INTERNAL_UNDEFINED")

status_for(reason) := s if {
	s := {"AGENT_UNAUTHENTICATED": 401, "IDENTITY_INVALID": 401, "IDENTITY_CONFLICT": 401, "HTTP_METHOD_NOT_ALLOWED": 405, "BODY_TOO_LARGE": 413}[reason]
} else := 400 if {
	reason in {"NOT_KONG_REQUEST", "BODY_MISSING", "BODY_NOT_JSON", "BODY_NOT_JSON_RPC", "BATCH_NOT_ALLOWED", "JSONRPC_RESPONSE", "METHOD_MISSING", "PARAMS_NOT_OBJECT", "HEADER_MISMATCH", "DUPLICATE_HEADER", "NAME_MISSING"}
} else := 403

default response := {"allow": false, "status": 403, "headers": {"x-toolgate-reason": "INTERNAL_UNDEFINED"}, "message": "toolgate denied the request: INTERNAL_UNDEFINED"}

# The verdict is read once, into v, for each branch.
response := {"allow": true, "headers": {"x-toolgate-agent": v.agent}} if {
	v := verdict
	v.allow == true
} else := {
	"allow": false,
	"status": status_for(v.reason),
	"headers": {"x-toolgate-reason": v.reason},
	"message": concat(": ", ["toolgate denied the request", v.reason]),
} if {
	v := verdict
}
