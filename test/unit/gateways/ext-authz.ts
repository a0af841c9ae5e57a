/** Envoy ext_authz inputs for the gateway tests, shaped as opa-envoy-plugin builds them. */
export const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
export const bearer = (sub: string) => `Bearer ${b64({ alg: 'RS256', typ: 'JWT' })}.${b64({ sub, iss: 'https://idp.toolgate.test' })}.c2ln`;

/** An ext_authz input as opa-envoy-plugin hands it to OPA for one MCP request. */
export function extAuthz(body: unknown, headers: Record<string, unknown> = {}, options: { rawBody?: string; parsed?: boolean } = {}): Record<string, unknown> {
  const text = options.rawBody ?? JSON.stringify(body);
  const b = body as { method?: string; params?: { name?: string } };
  const h: Record<string, unknown> = {
    ':authority': 'mcp.toolgate.test',
    ':method': 'POST',
    ':path': '/mcp',
    'content-type': 'application/json',
    'mcp-protocol-version': '2026-07-28',
    ...(b?.method ? { 'mcp-method': b.method } : {}),
    ...(b?.method === 'tools/call' && typeof b.params?.name === 'string' ? { 'mcp-name': b.params.name } : {}),
    ...headers,
  };
  for (const k of Object.keys(h)) if (h[k] === undefined) delete h[k];
  return {
    attributes: { request: { http: { method: 'POST', path: '/mcp', host: 'mcp.toolgate.test', protocol: 'HTTP/2', headers: h, body: text } } },
    ...(options.parsed === false ? {} : { parsed_body: body }),
    parsed_path: ['mcp'],
    parsed_query: {},
    truncated_body: false,
    version: { encoding: 'protojson', ext_authz: 'v3' },
  };
}

export const toolsCall = (name: string, extra: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {}, ...extra } });

function deep(n: number): unknown {
  let v: unknown = 'x';
  for (let i = 0; i < n; i++) v = { a: v };
  return v;
}

/** Hostile requests (JSON nested `depth` levels) and the reason each must be denied with. */
export function hostile(depth: number): readonly [string, Record<string, unknown>, string][] {
  return [
  ['a 2 MB body (raw, unparsed)', extAuthz(null, { authorization: bearer('ci-bot') }, { rawBody: JSON.stringify(toolsCall('git_log', { pad: 'x'.repeat(2_000_000) })), parsed: false }), 'BODY_TOO_LARGE'],
  ['a 2 MB body, parsed too', extAuthz(toolsCall('git_log', { pad: 'x'.repeat(2_000_000) }), { authorization: bearer('ci-bot') }), 'BODY_TOO_LARGE'],
  ['JSON nested deep in the arguments of a denied tool', extAuthz(toolsCall('git_show', { arguments: deep(depth) }), { authorization: bearer('ci-bot') }), 'DENY_VIOLATION'],
  ['a body nested deep that is no JSON-RPC', extAuthz(deep(depth), { authorization: bearer('ci-bot'), 'mcp-method': 'tools/call' }), 'BODY_NOT_JSON_RPC'],
  ['a non-UTF-8 mcp-name (decoded as U+FFFD)', extAuthz(toolsCall('git_log'), { authorization: bearer('ci-bot'), 'mcp-name': 'git_log\ufffd' }), 'HEADER_MISMATCH'],
  ['a lone surrogate in the tool name', extAuthz(toolsCall('git_log\udc80'), { authorization: bearer('ci-bot') }), 'TOOL_NOT_FOUND'],
  ['two mcp-name headers (joined by Envoy)', extAuthz(toolsCall('git_log'), { authorization: bearer('ci-bot'), 'mcp-name': 'git_log,git_show' }), 'HEADER_MISMATCH'],
  ['a forged x-toolgate-agent with no token', extAuthz(toolsCall('read_file'), { 'x-toolgate-agent': 'ops-agent' }), 'AGENT_UNAUTHENTICATED'],
  ['a forged x-toolgate-agent beside another agent\'s token', extAuthz(toolsCall('git_show'), { authorization: bearer('ci-bot'), 'x-toolgate-agent': 'ops-agent' }), 'DENY_VIOLATION'],
  ['a token whose payload is not JSON', extAuthz(toolsCall('git_log'), { authorization: `Bearer e30.${Buffer.from('{"sub":').toString('base64url')}.c2ln` }), 'IDENTITY_INVALID'],
  ['a token whose sub is an object', extAuthz(toolsCall('git_log'), { authorization: `Bearer e30.${b64({ sub: { id: 'ci-bot' } })}.c2ln` }), 'IDENTITY_INVALID'],
  ['headers that are not an object', { ...extAuthz(toolsCall('git_log')), attributes: { request: { http: { method: 'POST', headers: ['authorization', bearer('ci-bot')], body: JSON.stringify(toolsCall('git_log')) } } } }, 'AGENT_UNAUTHENTICATED'],
  ['params that are a string', extAuthz({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: 'git_log' }, { authorization: bearer('ci-bot') }), 'PARAMS_NOT_OBJECT'],
  ['a name that is a number', extAuthz(toolsCall(7 as unknown as string), { authorization: bearer('ci-bot'), 'mcp-name': undefined }), 'NAME_MISSING'],
  ['an input that is not an ext_authz request', { hello: 'world' }, 'NOT_EXT_AUTHZ'],
  ];
}
