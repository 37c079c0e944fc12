import type { JsonValue } from './messages.js';

/** The kinds of credential `redactCredentials` recognizes. */
export type CredentialKind =
  | 'private-key'
  | 'url-password'
  | 'bearer-token'
  | 'authorization-header'
  | 'anthropic-key'
  | 'openai-key'
  | 'stripe-key'
  | 'aws-access-key'
  | 'aws-secret-key'
  | 'azure-key'
  | 'github-token'
  | 'gitlab-token'
  | 'slack-token'
  | 'google-key'
  | 'jwt'
  | 'secret-assignment';

export interface CredentialRedaction {
  readonly kind: CredentialKind;
  /** How many times this kind was replaced in the text. */
  readonly count: number;
}

export interface RedactedText {
  /** The text with every recognized credential replaced by `[REDACTED:<kind>]` (`[REDACTED:<kind>#<n>]` with a vault). */
  readonly text: string;
  /** One entry per kind found, in the order of `CREDENTIAL_PATTERNS`; empty when the text was clean. */
  readonly redactions: readonly CredentialRedaction[];
}

export interface RedactOptions {
  /**
   * Remembers each replaced value under a numbered marker for the life of
   * the vault (a run), so `CredentialVault.restore` can give it back where a
   * value must reach its destination (a provider request, a tool's
   * arguments) while every store keeps the marker. Default: none, plain
   * markers.
   */
  readonly vault?: CredentialVault;
}

interface CredentialPattern {
  readonly kind: CredentialKind;
  /**
   * The match is the optional named group `keep` (context kept verbatim: a
   * scheme, a user name, a label) followed by the secret, which is replaced.
   */
  readonly pattern: RegExp;
}

/** The marker every redaction starts with; a secret that already starts with it is left alone (idempotence). */
const MARKER_START = '[REDACTED:';

/*
 * Linear time: every pattern starts where the character before it cannot
 * belong to the token (a lookbehind of the token's own class), so no two
 * attempts scan the same run, and every repetition is either bounded or
 * followed by a character outside its class. `redact-credentials.test.ts`
 * holds the adversarial inputs.
 */
const B64URL = 'A-Za-z0-9_-';
const TOKEN_START = `(?<![${B64URL}])`;
/** `name: value`, `name=value`, `"name": "value"`, and the same JSON-escaped once (`\"name\": \"value\"`). */
const SEPARATOR = `\\\\?["']?[ \\t]*[:=][ \\t]*`;
/** A value after its separator: quoted (spaces allowed, up to the quote) or bare (up to a space, quote or delimiter). */
const VALUE = `(?:(?<quoted>\\\\?"(?!\\[REDACTED:)(?:[^"\\\\\\r\\n]|\\\\[^"\\r\\n]){1,1024}(?=\\\\?"|[\\r\\n]|$)|\\\\?'(?!\\[REDACTED:)[^'\\\\\\r\\n]{1,1024}(?='|[\\r\\n]|$))|(?!\\[REDACTED:|(?:null|true|false|undefined)\\b)[^\\s"'\\\\,;&<>(){}]{1,1024}(?![^\\s"'\\\\,;&<>(){}]))`;
/** Labels whose value is a secret; matched as the end of a name (`PGPASSWORD`, `x-api-key`, `client_secret`). */
const SECRET_LABELS = 'password|passwd|passphrase|pwd|secret|api[_-]?key|apikey|access[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token|id[_-]?token|session[_-]?token|private[_-]?key|token|credentials?';

/**
 * Ordered: a PEM block first (it may contain anything), then URL passwords,
 * then schemes and prefixed tokens, labelled values last. A marker never
 * matches a later pattern.
 */
const CREDENTIAL_PATTERNS: readonly CredentialPattern[] = [
  // An unterminated block (a cut text) is redacted to its end.
  { kind: 'private-key', pattern: /-----BEGIN [A-Z0-9 ]{0,64}PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]{0,64}PRIVATE KEY( BLOCK)?-----|$)/g },
  { kind: 'url-password', pattern: /(?<keep>(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,31}:\/\/[^\s:/@[\]]{1,256}:)(?!\[REDACTED:)[^\s/@]{1,256}(?=@)/gi },
  // `Bearer`/`Basic` as written by clients; a lower-case `bearer` in prose is a token only when it looks like one (a digit, or 20 characters).
  { kind: 'bearer-token', pattern: /(?<keep>(?<![A-Za-z0-9_-])(?:Bearer|Basic|bearer|BEARER)[ \t]+)(?=[A-Za-z0-9\-._~+/]{0,4096}[0-9]|[A-Za-z0-9\-._~+/]{20})[A-Za-z0-9\-._~+/]{8,}=*/g },
  // Any scheme (`Token`, `Digest`, `ApiKey`...) or none, in an Authorization header.
  { kind: 'authorization-header', pattern: new RegExp(`(?<keep>${TOKEN_START}(?:proxy-)?authorization${SEPARATOR}\\\\?["']?(?![A-Za-z-]{1,32}[ \\t]+\\[REDACTED:)(?:[A-Za-z-]{1,32}[ \\t]+)?)(?!\\[REDACTED:)[^\\s"'\\\\,;]{1,4096}(?![^\\s"'\\\\,;])`, 'gi') },
  { kind: 'anthropic-key', pattern: /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{8,}/g },
  { kind: 'openai-key', pattern: /(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{16,}/g },
  { kind: 'stripe-key', pattern: /(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|(?<![A-Za-z0-9_])whsec_[A-Za-z0-9]{16,}/g },
  { kind: 'aws-access-key', pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA|ABIA|ACCA)[0-9A-Z]{16}(?![A-Za-z0-9])/g },
  {
    kind: 'aws-secret-key',
    pattern: /(?<keep>(?<![A-Za-z0-9_])(?:aws_?secret_?access_?key|secret_?access_?key|aws_?secret)\\?["']?[ \t]{0,16}[:=][ \t]{0,16}\\?["']?)[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])/gi,
  },
  { kind: 'azure-key', pattern: /(?<keep>(?<![A-Za-z0-9_])(?:AccountKey|SharedAccessKey|SharedAccessSignature|sig)=)(?!\[REDACTED:)[A-Za-z0-9%+/=]{20,1024}(?![A-Za-z0-9%+/=])/g },
  { kind: 'github-token', pattern: /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})/g },
  { kind: 'gitlab-token', pattern: /(?<![A-Za-z0-9_-])(?:glpat|gldt|glrt|glptt|glsoat|gloas)-[A-Za-z0-9_-]{20,}/g },
  { kind: 'slack-token', pattern: /(?<![A-Za-z0-9_-])(?:xox[abposre]-[A-Za-z0-9-]{10,}|hooks\.slack\.com\/services\/[A-Za-z0-9/]+)/g },
  { kind: 'google-key', pattern: /(?<![A-Za-z0-9_-])(?:AIza[0-9A-Za-z_-]{35,}|ya29\.[0-9A-Za-z_-]{20,})/g },
  { kind: 'jwt', pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g },
  { kind: 'secret-assignment', pattern: new RegExp(`(?<keep>${TOKEN_START}[A-Za-z0-9_.-]{0,64}?(?:${SECRET_LABELS})${SEPARATOR})${VALUE}`, 'gi') },
];

/**
 * Replaces credentials in a text (a tool's output or failure, a thrown
 * error and its stack, a model's output) before it reaches a history, a
 * store, a prompt, a trace or an event. Pure, deterministic, linear in the
 * text, total (any string) and idempotent (a redacted text comes back
 * unchanged); a clean text comes back unchanged. Patterns are ours: no
 * maintained JavaScript library covers this list without a scanner runtime.
 */
export function redactCredentials(text: string, options: RedactOptions = {}): RedactedText {
  let result = text;
  const redactions: CredentialRedaction[] = [];
  for (const { kind, pattern } of CREDENTIAL_PATTERNS) {
    let count = 0;
    result = result.replace(pattern, (match: string, ...rest: unknown[]) => {
      const last = rest.at(-1);
      const groups: { keep?: string; quoted?: string } = typeof last === 'object' && last !== null ? last : {};
      // A quoted value keeps its opening quote (and its escape) in front of the marker.
      const keep = `${groups.keep ?? ''}${groups.quoted === undefined ? '' : /^\\?["']/.exec(groups.quoted)![0]}`;
      const secret = match.slice(keep.length);
      if (secret === '' || secret.startsWith(MARKER_START)) return match;
      count += 1;
      return `${keep}${options.vault ? options.vault.markerFor(kind, secret) : `[REDACTED:${kind}]`}`;
    });
    if (count > 0) redactions.push({ kind, count });
  }
  return { text: result, redactions };
}

/** The redactions of several texts, summed per kind, in the order of `CREDENTIAL_PATTERNS`. */
export function mergeRedactions(...lists: readonly (readonly CredentialRedaction[])[]): CredentialRedaction[] {
  const counts = new Map<CredentialKind, number>();
  for (const list of lists) for (const { kind, count } of list) counts.set(kind, (counts.get(kind) ?? 0) + count);
  return CREDENTIAL_PATTERNS.flatMap(({ kind }) => (counts.has(kind) ? [{ kind, count: counts.get(kind)! }] : []));
}

/** `kind ×count, ...`: what a diagnostic says about a redaction; never the value. */
export function describeRedactions(redactions: readonly CredentialRedaction[]): string {
  return redactions.map(({ kind, count }) => `${kind} (${count})`).join(', ');
}

/**
 * Every string of a JSON-like value redacted (object keys are kept): for
 * tool-call arguments, a tool's `data`, an event. Returns the same value
 * (same reference) when nothing was found.
 */
export function redactCredentialsDeep<T>(value: T, options: RedactOptions = {}): { readonly value: T; readonly redactions: readonly CredentialRedaction[] } {
  const found: (readonly CredentialRedaction[])[] = [];
  const redacted = mapStrings(value, (text) => {
    const result = redactCredentials(text, options);
    if (result.redactions.length > 0) found.push(result.redactions);
    return result.text;
  });
  return { value: redacted, redactions: mergeRedactions(...found) };
}

/** Every string of plain objects and arrays mapped; a part in which nothing changed keeps its reference. */
function mapStrings<T>(value: T, map: (text: string) => string): T {
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') return map(node);
    if (Array.isArray(node)) {
      const mapped = node.map(walk);
      return mapped.some((item, index) => item !== node[index]) ? mapped : node;
    }
    if (node !== null && typeof node === 'object' && Object.getPrototypeOf(node) === Object.prototype) {
      const entries = Object.entries(node).map(([key, item]) => [key, walk(item)] as const);
      return entries.some(([key, item]) => item !== (node as Record<string, unknown>)[key]) ? Object.fromEntries(entries) : node;
    }
    return node;
  };
  return walk(value) as T;
}

/**
 * The values a run redacted, by numbered marker, in memory only: never
 * persisted, so a restart or another worker holds none and the marker
 * stays. `restore` puts them back into what must carry the real value (the
 * request to a provider when an agent must handle keys, a tool's
 * arguments). The same value always gets the same marker.
 */
export class CredentialVault {
  readonly #byMarker = new Map<string, string>();
  readonly #byValue = new Map<string, string>();

  /** The marker of one value, made on first sight. */
  markerFor(kind: CredentialKind, value: string): string {
    const known = this.#byValue.get(`${kind}\u0000${value}`);
    if (known !== undefined) return known;
    const marker = `[REDACTED:${kind}#${this.#byMarker.size + 1}]`;
    this.#byMarker.set(marker, value);
    this.#byValue.set(`${kind}\u0000${value}`, marker);
    return marker;
  }

  get size(): number {
    return this.#byMarker.size;
  }

  /** The text with every marker this vault made replaced by its value; other markers are kept. */
  restore(text: string): string {
    if (this.#byMarker.size === 0 || !text.includes(MARKER_START)) return text;
    return text.replace(/\[REDACTED:[a-z-]{1,32}#[0-9]{1,9}\]/g, (marker) => this.#byMarker.get(marker) ?? marker);
  }

  /** `restore` over every string of a JSON-like value (same reference when nothing changed). */
  restoreDeep<T>(value: T): T {
    return this.#byMarker.size === 0 ? value : mapStrings(value, (text) => this.restore(text));
  }
}

/** What the context of a credential that spans a space starts with: a line holding one is released whole. */
const CREDENTIAL_CONTEXT = /bearer|basic|token|authori[sz]ation|pass|pwd|secret|key|credential|sig=|:\/\/|-----BEGIN/i;

/** Characters a stream holds back at least once a line is longer than `STREAM_CUT_CHARS`: longer than any single-line credential the patterns know. */
const STREAM_HOLD_CHARS = 4_096;
/** A line longer than this is cut without waiting for its end. */
const STREAM_CUT_CHARS = 16_384;
/** An unterminated private key held longer than this is dropped to its end instead (the text says so). */
const STREAM_MAX_HELD_CHARS = 1_048_576;

/**
 * Redacts a text that arrives in pieces (a streamed tool output, a model's
 * deltas): a credential may straddle two pieces, so text is released a line
 * at a time (a long line once it passes `STREAM_CUT_CHARS`, holding its
 * last `STREAM_HOLD_CHARS`), never inside a match, and never inside a
 * private key block that has not ended. The pieces it returns, joined, are
 * the whole text redacted (up to where a cut falls).
 */
export class CredentialStreamRedactor {
  readonly #options: RedactOptions;
  readonly #byWord: boolean;
  #held = '';
  /** Inside a private key that outgrew the hold: dropped until its END line. */
  #dropping = false;
  /** The held text starts inside a private key block whose END has not arrived. */
  #awaitingEnd = false;
  readonly #found: (readonly CredentialRedaction[])[] = [];

  /**
   * `release: 'word'` (for a model's deltas) releases up to the last space
   * or tab too, unless the line so far holds what a credential's context
   * starts with (a scheme, a label, `://`, a key block), which waits for its
   * line end. Default `'line'`.
   */
  constructor(options: RedactOptions & { readonly release?: 'line' | 'word' } = {}) {
    this.#options = { vault: options.vault };
    this.#byWord = options.release === 'word';
  }

  /** What every piece so far held, per kind. */
  get redactions(): readonly CredentialRedaction[] {
    return mergeRedactions(...this.#found);
  }

  /** Takes one piece; returns the redacted text that can be released now (often empty). */
  push(piece: string): string {
    this.#held += piece;
    if (this.#dropping) return this.#drop();
    // A private key block is open: nothing is released before its END line arrives (or the hold is outgrown).
    if (this.#awaitingEnd && !this.#held.slice(-(piece.length + 80)).includes('-----END') && this.#held.length <= STREAM_MAX_HELD_CHARS) return '';
    this.#awaitingEnd = false;
    let cut = this.#held.lastIndexOf('\n') + 1;
    if (this.#byWord) {
      const space = Math.max(this.#held.lastIndexOf(' '), this.#held.lastIndexOf('\t')) + 1;
      if (space > cut && !CREDENTIAL_CONTEXT.test(this.#held.slice(cut, space))) cut = space;
    }
    const inLine = cut === 0 && this.#held.length > STREAM_CUT_CHARS;
    if (inLine) cut = this.#held.length - STREAM_HOLD_CHARS;
    if (cut === 0) return '';
    cut = this.#safeCut(cut, inLine);
    if (cut > 0) return this.#release(cut);
    if (this.#held.length <= STREAM_MAX_HELD_CHARS) return '';
    // Held this long: released redacted; an unterminated private key is redacted to here and the rest of its block dropped.
    this.#dropping = this.#awaitingEnd;
    this.#awaitingEnd = false;
    return this.#release(this.#held.length);
  }

  /** The rest, redacted, at the end of the text. */
  end(): string {
    if (this.#dropping) {
      this.#held = '';
      return '';
    }
    return this.#release(this.#held.length);
  }

  #release(cut: number): string {
    const redacted = redactCredentials(this.#held.slice(0, cut), this.#options);
    this.#held = this.#held.slice(cut);
    if (redacted.redactions.length > 0) this.#found.push(redacted.redactions);
    return redacted.text;
  }

  #drop(): string {
    const end = /-----END [A-Z0-9 ]{0,64}PRIVATE KEY( BLOCK)?-----/.exec(this.#held);
    if (end === null) {
      // Keep a possible END line cut in two.
      this.#held = this.#held.slice(-80);
      return '';
    }
    this.#dropping = false;
    this.#held = this.#held.slice(end.index + end[0].length);
    return this.push('');
  }

  /**
   * The cut moved back before any match that spans it. At a line end only a
   * private key block can (no other pattern crosses a line, and the patterns
   * run in order, the block first, so its matches are the text's own). A cut
   * inside a long line is checked against every pattern, then confirmed:
   * the two sides redacted apart must read as the whole redacted.
   */
  #safeCut(cut: number, inLine: boolean): number {
    let safe = cut;
    for (let moved = true; moved && safe > 0; ) {
      moved = false;
      for (const { kind, pattern } of CREDENTIAL_PATTERNS) {
        if (!inLine && kind !== 'private-key') break;
        for (const match of this.#held.matchAll(pattern)) {
          if (match.index >= safe) break;
          if (match.index + match[0].length < safe) continue;
          // A key block still open: hold from the start of its line (what precedes it on the line may belong to one match with it).
          if (kind === 'private-key' && !/-----END [A-Z0-9 ]{0,64}PRIVATE KEY( BLOCK)?-----$/.test(match[0])) this.#awaitingEnd = true;
          safe = inLine ? match.index : this.#held.lastIndexOf('\n', match.index) + 1;
          moved = true;
          break;
        }
      }
    }
    if (!inLine || safe === 0) return safe;
    const apart = redactCredentials(this.#held.slice(0, safe)).text + redactCredentials(this.#held.slice(safe)).text;
    return apart === redactCredentials(this.#held).text ? safe : 0;
  }
}
