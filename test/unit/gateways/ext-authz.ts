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

