# The one decision behind every gateway entrypoint (docs/gateways.md).
#
# Each entrypoint (envoy.rego, kong.rego, contextforge.rego, docker.rego) turns what its gateway
# sends into proofs of identity and a normalised call {method, name, contract}, asks verdict() here,
# and answers in its gateway's shape. verdict() uses data.toolgate.authz.decide, the function form
# of data.toolgate.authz.decision, so a tools/call is allowed exactly when decision allows it.
#
# Beware, in both engines: `not f(x)` and `not x in s` are undefined, not true, when x is
# undefined (OPA evaluates x before the negation); such checks read x with a default first.
#
# Fail closed: an agent is only what a configured identity source proves (data.toolgate.identity,
# compiled from the manifest's identity: section); an MCP method not in method_kind is denied
# METHOD_NOT_ALLOWED; every function ends in an else that denies.
package toolgate.gateways.core

import data.toolgate.authz
import rego.v1

# The explicit rule per MCP method (2025-06-18 .. 2026-07-28). tool / resource / prompt: decided
# from the catalog and governance; list: allowed for a known agent (tools/list filtering is
# visible_tools); session: protocol plumbing that reads nothing governed, allowed for a known
# agent. Anything else (completion/complete, logging/setLevel, resources/subscribe,
# subscriptions/listen, tasks/*, sampling and elicitation traffic) is METHOD_NOT_ALLOWED.
method_kind := {
	"tools/call": "tool",
	"resources/read": "resource",
	"prompts/get": "prompt",
	"tools/list": "list",
	"prompts/list": "list",
	"resources/list": "list",
	"resources/templates/list": "list",
	"initialize": "session",
	"server/discover": "session",
	"ping": "session",
	"notifications/initialized": "session",
	"notifications/cancelled": "session",
	"notifications/progress": "session",
	"notifications/roots/list_changed": "session",
	"HTTP GET": "session",
	"HTTP DELETE": "session",
}

# Parts of the data document, with a default where a bundle may lack them. (Never read
# data.toolgate as a whole: it holds these rules too, and would make them recursive.)
max_body := m if {
	m := data.toolgate.identity.max_body_bytes
} else := 1048576

resource_templates := t if {
	t := data.toolgate.resource_templates
} else := []

# One gateway's sources and the headers they read, precomputed by the compiler: OPA converts
# each data value a decision reads, so an entrypoint reads only its own part.
gateway_identity(gateway) := g if {
	g := data.toolgate.identity.by_gateway[gateway]
} else := {"sources": [], "headers": []}

# --- who is calling ---------------------------------------------------------------------------

# identify(gateway, proofs): {"ok", "agent", "reason"} from the identity sources configured for
# this gateway. proofs holds what the gateway itself established: headers, principal (the peer
# certificate's SPIFFE id), jwt_metadata (Envoy jwt_authn's verified payloads), kong_consumer,
# contextforge_user, contextforge_context, docker_agent.
#
# The first branch is the common case, one source that names someone; identity_verdict decides
# the rest (and would answer the same for it).
identify(gateway, proofs) := {"ok": true, "agent": agent_of(c.principal), "reason": null} if {
	[src] := data.toolgate.identity.by_gateway[gateway].sources
	c := claim(src.kind, src, proofs)
	is_string(c.principal)
} else := identity_verdict([c |
	some src in gateway_identity(gateway).sources
	c := claim(src.kind, src, proofs)
])

identity_verdict(claims) := {"ok": false, "agent": null, "reason": "IDENTITY_INVALID"} if {
	some c in claims
	c.invalid == true
} else := agents_verdict({agent_of(c.principal) | some c in claims; is_string(c.principal)})

# agents_verdict(agents): the set of agents the claims name, as one agent or why not.
agents_verdict(agents) := {"ok": true, "agent": agent, "reason": null} if {
	count(agents) == 1
	some agent in agents
} else := {"ok": false, "agent": null, "reason": "IDENTITY_CONFLICT"} if {
	count(agents) > 1
} else := {"ok": false, "agent": null, "reason": "AGENT_UNAUTHENTICATED"}

agent_of(principal) := agent if {
	agent := data.toolgate.identity.principals[principal]
} else := principal

# claim(kind, src, proofs): {"principal": p}, {"invalid": true} when the source was presented but
# does not prove anyone, or undefined when the request does not present it. The kind is a constant
# in each head so OPA's rule index picks the one definition for it instead of trying all; a kind
# read from two places tells them apart in one definition's else branches, which exclude each
# other (one definition is one function to evaluate, in OPA and in the builtin engine alike).
claim("header", src, proofs) := c if {
	proofs.headers[src.name] != null
	c := string_claim(proofs.headers[src.name])
}

claim("jwt", src, proofs) := {"principal": p} if {
	p := bearer_principal(src, proofs.headers.authorization)
} else := c if {
	src.from == "authorization"
	proofs.headers.authorization != null
	c := bearer_claim(src, proofs.headers.authorization)
} else := c if {
	src.from == "envoy_jwt_authn"
	proofs.jwt_metadata[src.metadata_key] != null
	c := path_claim(proofs.jwt_metadata[src.metadata_key], src.claim)
}

claim("spiffe", src, proofs) := c if {
	proofs.principal != null
	c := spiffe_claim(src.prefix, proofs.principal)
}

claim("kong_consumer", src, proofs) := c if {
	proofs.kong_consumer != null
	c := path_claim(proofs.kong_consumer, [src.field])
}

claim("contextforge_user", src, proofs) := c if {
	src.context_key == null
	not proofs.contextforge_user in {null, "none"}
	c := string_claim(proofs.contextforge_user)
} else := c if {
	is_string(src.context_key)
	c := string_claim(proofs.contextforge_context[src.context_key])
}

claim("docker_interceptor", _, proofs) := c if {
	proofs.docker_agent != null
	c := string_claim(proofs.docker_agent)
}

string_claim(v) := {"principal": v} if {
	is_string(v)
	v != ""
} else := {"invalid": true}

path_claim(doc, path) := {"principal": v} if {
	is_object(doc)
	v := object.get(doc, path, null)
	is_string(v)
	v != ""
} else := {"invalid": true}

spiffe_claim(prefix, v) := {"principal": v} if {
	is_string(v)
	startswith(v, prefix)
} else := {"invalid": true}

# The configured claim is read from the payload here, not in a function given the payload: a
# function's arguments are keyed for its result cache, and the payload would be walked to key it.
# A payload that is not an object makes object.get fail, which leaves the body undefined: invalid.
bearer_claim(src, header) := c if {
	is_string(header)
	parts := split(header, " ")
	count(parts) == 2
	lower(parts[0]) == "bearer"
	c := string_claim(object.get(jwt_payload(src, parts[1]), src.claim, null))
} else := {"invalid": true}

# bearer_principal(src, header): the claim a bearer token names, in one function, for the common
# source (the Authorization header, verified_by: gateway) when the token decodes and the claim is
# a non-empty string; otherwise undefined, and bearer_claim says why (it answers the same for it).
bearer_principal(src, header) := p if {
	src.from == "authorization"
	src.verified_by == "gateway"
	is_string(header)
	[scheme, token] := split(header, " ")
	lower(scheme) == "bearer"
	[_, payload, _] := split(token, ".")
	text := base64url_text(payload)
	json.is_valid(text)
	p := object.get(json.unmarshal(text), src.claim, null)
	is_string(p)
	p != ""
}

# The text a base64url segment decodes to, or undefined when it is not base64url (what OPA's
# base64url.decode accepts: unpadded, or padded to a multiple of four), checked first so that no
# request makes the builtin fail: under strict builtin errors (the REST API's
# strict-builtin-errors) a failed builtin is an evaluation error, which a gateway that fails open
# turns into an allow.
base64url_text(s) := base64url.decode(s) if {
	regex.match(`^(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2,3}|[A-Za-z0-9_-]{2}==|[A-Za-z0-9_-]{3}=)?$`, s)
}

# A JWT's payload: decoded only when a filter before OPA verified the token (verified_by: gateway,
# e.g. Kong's jwt plugin or Envoy's jwt_authn), verified with io.jwt.decode_verify when OPA holds
# the keys (verified_by: opa). io.jwt.decode is not used: toolgate's builtin engine lacked it, and
# base64url + json.unmarshal give the same payload in every engine. A malformed token makes a
# builtin fail, which leaves the body undefined (OPA's non-strict builtin errors), hence invalid.
jwt_payload(src, token) := payload if {
	src.verified_by == "gateway"
	segments := split(token, ".")
	count(segments) == 3
	text := base64url_text(segments[1])
	json.is_valid(text)
	payload := json.unmarshal(text)
} else := payload if {
	src.verified_by == "opa"
	[valid, _, payload] := io.jwt.decode_verify(token, src.constraints)
	valid == true
}

# --- the JSON-RPC body --------------------------------------------------------------------------

# Entrypoints never pass the request body, its params or all headers to these functions: a
# function's arguments are keyed for its result cache, so a large or deeply nested value would be
# walked on every call. They pass booleans and strings read from the body instead.

# rpc_error(shape): why a request body is not one JSON-RPC 2.0 request, or undefined. shape holds
# booleans about the body: batch (an array), object, v2 (jsonrpc is "2.0"), has_method (a
# "method" key), reply (a "result" or "error" key), method_string, params_object (params absent
# or an object).
rpc_error(shape) := "BATCH_NOT_ALLOWED" if {
	shape.batch
} else := "BODY_NOT_JSON_RPC" if {
	not shape.object
} else := "BODY_NOT_JSON_RPC" if {
	not shape.v2
} else := "JSONRPC_RESPONSE" if {
	not shape.has_method
	shape.reply
} else := "METHOD_MISSING" if {
	not shape.method_string
} else := "PARAMS_NOT_OBJECT" if {
	not shape.params_object
}

# target_name(method, params): what a method acts on, params.uri (resources/read) or params.name
# (tools/call, prompts/get), when it is a string; otherwise null.
target_name(method, params) := n if {
	n := params[{"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}[method]]
	is_string(n)
} else := null

# The contract the caller saw, when supplied in params._meta: the tool object from tools/list
# ("io.toolgate/tool") or its tool_contract_digest ("io.toolgate/tool_contract_digest").
contract_of(meta_tool, meta_digest) := {"tool": meta_tool} if {
	not meta_tool in {null, false}
} else := {"digest": meta_digest} if {
	not meta_digest in {null, false}
} else := null

# contract_in(params): the contract a call's params._meta supplies (contract_of), or null.
contract_in(params) := contract_of(object.get(m, "io.toolgate/tool", null), object.get(m, "io.toolgate/tool_contract_digest", null)) if {
	m := params._meta
	is_object(m)
} else := null

# The headers a gateway's identity sources may read: a header source's name, and authorization
# for JWTs.
identity_headers(gateway) := gateway_identity(gateway).headers

# --- the verdict --------------------------------------------------------------------------------

# verdict(ident, method, name, contract): {"allow", "reason", "agent", "method", "tool"}.
#
# The first branch is the common case, a known agent's tools/call of a catalog tool by its key with
# no contract supplied, answered straight from authz.decide (whose allow is always a boolean; a
# catalog key is always a string); call_verdict decides everything else (and would answer the same
# for it).
verdict(ident, method, name, contract) := {
	"allow": d.allow,
	"reason": d.reason,
	"agent": ident.agent,
	"method": method,
	"tool": name,
} if {
	ident.ok == true
	method == "tools/call"
	contract == null
	data.toolgate.tools[name]
	data.toolgate.agents[ident.agent]
	d := authz.decide(ident.agent, name)
} else := {
	"allow": v.allow,
	"reason": v.reason,
	"agent": ident.agent,
	"method": method,
	"tool": v.tool,
} if {
	v := call_verdict(ident, method, name, contract)
} else := denied(ident.agent, method, "INTERNAL_UNDEFINED")

denied(agent, method, reason) := {"allow": false, "reason": reason, "agent": agent, "method": method, "tool": null}

# refused(reason): a request refused before its identity or method counted.
refused(reason) := denied(null, null, reason)

# The checks in order: a proven identity, a declared agent, a method with a rule. The first branch
# is the common case, a known agent calling a known method; the others say which check failed.
call_verdict(ident, method, name, contract) := kind_verdict(method_kind[method], ident.agent, name, contract) if {
	ident.ok == true
	data.toolgate.agents[ident.agent]
} else := no(ident.reason, null) if {
	ident.ok != true
} else := no("AGENT_NOT_FOUND", null) if {
	not data.toolgate.agents[ident.agent]
} else := no("METHOD_NOT_ALLOWED", null)

# kind_verdict(kind, agent, name, contract): a known agent's call of a method of that kind.
kind_verdict("tool", agent, name, contract) := tool_verdict(agent, name, contract)

kind_verdict("resource", _, name, _) := resource_verdict(name)

kind_verdict("prompt", _, name, _) := prompt_verdict(name)

kind_verdict("list", _, _, _) := {"allow": true, "reason": null, "tool": null}

kind_verdict("session", _, _, _) := {"allow": true, "reason": null, "tool": null}

no(reason, tool) := {"allow": false, "reason": reason, "tool": tool}

tool_verdict(agent, name, contract) := granted_verdict(authz.decide(agent, r.key), r.key, contract) if {
	is_string(name)
	r := resolve_tool(name)
	r.ok == true
} else := no("NAME_MISSING", null) if {
	not is_string(name)
} else := no(resolve_tool(name).reason, null)

# contract_reason(key, null) is undefined: without a supplied contract there is nothing to compare.
granted_verdict(d, key, contract) := no(d.reason, key) if {
	d.allow != true
} else := no(r, key) if {
	contract != null
	r := contract_reason(key, contract)
} else := {"allow": true, "reason": d.reason, "tool": key}

# resolve_tool(name) / resolve_prompt(name): a qualified key, or a bare name exposed by exactly
# one server; otherwise AMBIGUOUS_* or *_NOT_FOUND, never guessed. (They read the data document
# directly: passing its objects as function arguments would make every call hash them.)
resolve_tool(name) := {"ok": true, "key": name} if {
	data.toolgate.tools[name]
} else := {"ok": true, "key": keys[0]} if {
	keys := data.toolgate.tools_by_name[name]
	count(keys) == 1
} else := {"ok": false, "reason": "AMBIGUOUS_TOOL"} if {
	count(data.toolgate.tools_by_name[name]) > 1
} else := {"ok": false, "reason": "TOOL_NOT_FOUND"}

resolve_prompt(name) := {"ok": true, "key": name} if {
	data.toolgate.prompts[name]
} else := {"ok": true, "key": keys[0]} if {
	keys := data.toolgate.prompts_by_name[name]
	count(keys) == 1
} else := {"ok": false, "reason": "AMBIGUOUS_PROMPT"} if {
	count(data.toolgate.prompts_by_name[name]) > 1
} else := {"ok": false, "reason": "PROMPT_NOT_FOUND"}

# Contract pinning: a supplied contract that differs from the compiled one is CONTRACT_CHANGED.
contract_reason(key, contract) := "CONTRACT_CHANGED" if {
	contract != null
	not data.toolgate.contracts[key]
} else := "CONTRACT_CHANGED" if {
	is_string(contract.digest)
	contract.digest != data.toolgate.tools[key].tool_contract_digest
} else := "CONTRACT_CHANGED" if {
	is_object(contract.tool)
	object.get(contract.tool, "name", data.toolgate.tools[key].name) != data.toolgate.tools[key].name
} else := "CONTRACT_CHANGED" if {
	is_object(contract.tool)
	normal_contract(contract.tool) != data.toolgate.contracts[key]
} else := "CONTRACT_INVALID" if {
	contract != null
	not is_string(object.get(contract, "digest", null))
	not is_object(object.get(contract, "tool", null))
}

# An MCP tool object as the fields tool_contract_digest covers (src/compile/digests.ts).
normal_contract(t) := {
	"description": object.get(t, "description", null),
	"input_schema": object.get(t, "inputSchema", null),
	"read_only_hint": hint(t, "readOnlyHint"),
	"destructive_hint": hint(t, "destructiveHint"),
	"idempotent_hint": hint(t, "idempotentHint"),
	"open_world_hint": hint(t, "openWorldHint"),
}

hint(t, k) := v if {
	v := t.annotations[k]
	is_boolean(v)
} else := null

# changed_tools(server, tools): of the tool objects a server lists now, the names whose contract
# differs from the compiled one or that the catalog does not know (for gateways that inspect
# tools/list responses).
changed_tools(server, tools) := sort([name |
	some t in tools
	name := object.get(t, "name", "")
	contract_reason(concat("::", [server, name]), {"tool": t})
])

# resources/read: a catalog resource (or a governed URI a catalog template expands to) governed by
# no DENY policy; under strict, also by an ALLOW. A URI the catalog names only through a resource
# template is decided like that template's resource: by the policies bound to the template.
resource_verdict(uri) := no("NAME_MISSING", null) if {
	not is_string(uri)
} else := resource_entry_verdict(data.toolgate.resources[uri], uri) if {
	data.toolgate.resources[uri]
} else := template_verdict(matching_templates(uri)) if {
	count(matching_templates(uri)) > 0
} else := no("RESOURCE_NOT_FOUND", null)

resource_entry_verdict(r, uri) := no("RESOURCE_DENY_GOVERNED", uri) if {
	count(r.deny) > 0
} else := no("RESOURCE_UNGOVERNED", uri) if {
	data.toolgate.profile == "strict"
	count(r.allow) == 0
} else := {"allow": true, "reason": null, "tool": uri}

# The templates a URI matches, in the data document's (sorted) order.
matching_templates(uri) := [t |
	some t in resource_templates
	regex.match(t.pattern, uri)
]

# Every matching template must let the read through; the answer names the first.
template_verdict(ts) := no("RESOURCE_DENY_GOVERNED", ts[0].template) if {
	some t in ts
	count(t.deny) > 0
} else := no("RESOURCE_UNGOVERNED", ts[0].template) if {
	data.toolgate.profile == "strict"
	some t in ts
	count(t.allow) == 0
} else := {"allow": true, "reason": null, "tool": ts[0].template}

# prompts/get: no manifest edge governs a prompt, so strict refuses it; review and explore allow a
# catalog prompt.
prompt_verdict(name) := no("NAME_MISSING", null) if {
	not is_string(name)
} else := no(r.reason, null) if {
	r := resolve_prompt(name)
	r.ok == false
} else := no("PROMPT_UNGOVERNED", key) if {
	key := resolve_prompt(name).key
	data.toolgate.profile == "strict"
} else := {"allow": true, "reason": null, "tool": resolve_prompt(name).key}

# The tools a known agent may see (authz.visible_tools for that agent).
visible_for(agent) := authz.visible_tools_of(agent)
