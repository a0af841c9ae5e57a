/**
 * Credential-shaped text: what must never be stored in an identity, a run id, a review note or a
 * control plan. The test is lexical and deliberately wide (a false refusal costs a retyped note; a
 * stored secret costs a rotation): userinfo with a password in a URI, `key=value` assignments of
 * secret-named keys, bearer/basic authorization values, PEM private-key armour, JSON Web Tokens,
 * and the fixed prefixes of common provider tokens. It returns what it matched as a kind, never
 * the text, so a refusal message cannot echo the secret.
 */

export type CredentialKind =
  | 'uri_userinfo'
  | 'secret_assignment'
  | 'authorization_value'
  | 'private_key'
  | 'jwt'
  | 'provider_token';

const RULES: readonly (readonly [CredentialKind, RegExp])[] = [
  ['uri_userinfo', /[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:[^/\s@]+@/i],
  ['secret_assignment', /\b(?:pass(?:word|wd)?|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret|credentials?|auth)\s*[=:]\s*\S/i],
  ['authorization_value', /\b(?:bearer|basic)\s+[A-Za-z0-9._~+/-]{12,}=*/i],
  ['private_key', /-----BEGIN [A-Z ]*PRIVATE KEY-----/],
  ['jwt', /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/],
  [
    'provider_token',
    /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|glpat-[A-Za-z0-9_-]{20,}|npm_[A-Za-z0-9]{30,})/,
  ],
];

/** The first credential shape `text` matches, or undefined. */
export function credentialShape(text: string): CredentialKind | undefined {
  for (const [kind, re] of RULES) if (re.test(text)) return kind;
  return undefined;
}
