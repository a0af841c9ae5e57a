/**
 * `uri.parse` and `uri.is_valid`: a URI reference split as Go's net/url.Parse splits it (RFC 3986),
 * see lib/gourl.ts. Only the parts present are in the object; `raw_path` is the path as written.
 */
import { ObjectValue } from '../value.ts';
import { builtinError, registerBuiltins, type BuiltinDef } from './registry.ts';
import { str } from './args.ts';
import { GoURLError, parseGoURL, splitHostPort } from './lib/gourl.ts';

function parseURI(name: string, text: string): ObjectValue {
  let u;
  try {
    u = parseGoURL(text);
  } catch (e) {
    if (e instanceof GoURLError) throw builtinError(name, e.message);
    throw e;
  }
  const out = new ObjectValue();
  const { hostname, port } = splitHostPort(u.host);
  if (u.scheme !== '') out.set('scheme', u.scheme);
  if (hostname !== '') out.set('hostname', hostname);
  if (port !== '') out.set('port', port);
  if (u.path !== '') {
    out.set('path', u.path);
    out.set('raw_path', u.rawPath === '' ? u.path : u.rawPath);
  }
  if (u.rawQuery !== '') out.set('raw_query', u.rawQuery);
  if (u.fragment !== '') out.set('fragment', u.fragment);
  return out;
}

export const URI_BUILTINS: BuiltinDef[] = [
  { name: 'uri.parse', arity: 1, fn: (a) => parseURI('uri.parse', str('uri.parse', a, 0)) },
  {
    name: 'uri.is_valid',
    arity: 1,
    fn: (a) => {
      const s = a[0];
      // OPA answers false for any non-string and for the empty reference (valid per RFC 3986, but never meant in a policy).
      if (typeof s !== 'string' || s === '') return false;
      try {
        parseGoURL(s);
        return true;
      } catch (e) {
        if (e instanceof GoURLError) return false;
        throw e;
      }
    },
  },
];

registerBuiltins(URI_BUILTINS);
