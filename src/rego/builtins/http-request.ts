/**
 * The keys of an http.send request object, checked as OPA checks them before sending: http.send and
 * providers.aws.sign_req refuse the same unknown or missing keys, each under its own operand prefix.
 */
import { ObjectValue, SetValue, type Value } from '../value.ts';

/** The request keys OPA's http.send accepts. */
const REQUEST_KEYS: ReadonlySet<string> = new Set([
  'method', 'url', 'body', 'enable_redirect', 'force_json_decode', 'force_yaml_decode', 'headers', 'raw_body',
  'tls_use_system_certs', 'tls_ca_cert', 'tls_ca_cert_file', 'tls_ca_cert_env_variable', 'tls_client_cert',
  'tls_client_cert_file', 'tls_client_cert_env_variable', 'tls_client_key', 'tls_client_key_file',
  'tls_client_key_env_variable', 'tls_insecure_skip_verify', 'tls_server_name', 'timeout', 'cache', 'force_cache',
  'force_cache_duration_seconds', 'raise_error', 'caching_mode', 'max_retry_attempts', 'cache_ignored_headers',
]);

const REQUIRED_KEYS = ['method', 'url'];

/**
 * What is wrong with a request's keys (unknown ones first, then missing ones), in OPA's words, or
 * undefined when they are fine; `text` renders the set of keys named.
 */
export function requestKeysFault(req: ObjectValue, text: (keys: Value) => string): string | undefined {
  const unknown = req.keys().filter((k) => typeof k !== 'string' || !REQUEST_KEYS.has(k));
  if (unknown.length > 0) return `invalid request parameters(s): ${text(new SetValue(unknown))}`;
  const missing = REQUIRED_KEYS.filter((k) => req.get(k) === undefined);
  if (missing.length > 0) return `missing required request parameters(s): ${text(new SetValue(missing))}`;
  return undefined;
}
