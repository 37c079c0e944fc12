/** The kinds of credential `redactCredentials` recognizes. */
export type CredentialKind =
  | 'private-key'
  | 'url-password'
  | 'bearer-token'
  | 'anthropic-key'
  | 'openai-key'
  | 'aws-access-key'
  | 'aws-secret-key'
  | 'github-token'
  | 'slack-token'
  | 'google-key';

export interface CredentialRedaction {
  readonly kind: CredentialKind;
  /** How many times this kind was replaced in the text. */
  readonly count: number;
}

export interface RedactedText {
  /** The text with every recognized credential replaced by `[REDACTED:<kind>]`. */
  readonly text: string;
  /** One entry per kind found, in the order of `CREDENTIAL_PATTERNS`; empty when the text was clean. */
  readonly redactions: readonly CredentialRedaction[];
}

interface CredentialPattern {
  readonly kind: CredentialKind;
  readonly pattern: RegExp;
  /** Replaces one match; keeps the non-secret context (a scheme, a user name, a label). */
  readonly replace: (marker: string, ...groups: string[]) => string;
}

const whole = (marker: string): string => marker;

/**
 * Ordered: a PEM block first (it may contain anything), then URL passwords,
 * then prefixed tokens. A marker never matches a later pattern.
 */
const CREDENTIAL_PATTERNS: readonly CredentialPattern[] = [
  // An unterminated block (a cut error text) is redacted to its end.
  { kind: 'private-key', pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g, replace: whole },
  { kind: 'url-password', pattern: /\b([a-z][a-z0-9+.-]*:\/\/)([^\s:/@]+):([^\s/@]+)@/gi, replace: (marker, scheme, user) => `${scheme}${user}:${marker}@` },
  { kind: 'bearer-token', pattern: /\b(Bearer|Basic)\s+[A-Za-z0-9\-._~+/]{8,}=*/g, replace: (marker, scheme) => `${scheme} ${marker}` },
  { kind: 'anthropic-key', pattern: /\bsk-ant-[A-Za-z0-9_-]{8,}/g, replace: whole },
  { kind: 'openai-key', pattern: /\bsk-[A-Za-z0-9_-]{16,}/g, replace: whole },
  { kind: 'aws-access-key', pattern: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b/g, replace: whole },
  {
    kind: 'aws-secret-key',
    pattern: /\b(aws_?secret_?access_?key|secret_?access_?key|aws_?secret)(["']?\s*[:=]\s*["']?)[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])/gi,
    replace: (marker, label, separator) => `${label}${separator}${marker}`,
  },
  { kind: 'github-token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})/g, replace: whole },
  { kind: 'slack-token', pattern: /\b(?:xox[abposre]-[A-Za-z0-9-]{10,}|hooks\.slack\.com\/services\/[A-Za-z0-9/]+)/g, replace: whole },
  { kind: 'google-key', pattern: /\b(?:AIza[0-9A-Za-z_-]{35}|ya29\.[0-9A-Za-z_-]{20,})/g, replace: whole },
];

/**
 * Replaces credentials in a text (an error message, a tool's failure text)
 * before it reaches a history, a store, a prompt or a trace. Pure and
 * deterministic; a clean text comes back unchanged. Patterns are ours: no
 * maintained JavaScript library covers this list without a scanner runtime.
 */
export function redactCredentials(text: string): RedactedText {
  let result = text;
  const redactions: CredentialRedaction[] = [];
  for (const { kind, pattern, replace } of CREDENTIAL_PATTERNS) {
    let count = 0;
    const marker = `[REDACTED:${kind}]`;
    result = result.replace(pattern, (_match: string, ...groups: unknown[]) => {
      count += 1;
      return replace(marker, ...groups.filter((group): group is string => typeof group === 'string'));
    });
    if (count > 0) redactions.push({ kind, count });
  }
  return { text: result, redactions };
}
