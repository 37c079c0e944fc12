import { WRAPPER_TAG_NAMES } from '@strata/context';

/** What remote text may not imitate, by the name a diagnostic gives it. */
const PATTERNS: ReadonlyArray<{ readonly name: string; readonly pattern: RegExp; readonly replace: (match: string) => string }> = [
  // A reminder block our runtime could be taken to have sent: its tags are made inert, the text stays readable.
  { name: 'system-reminder tag', pattern: /<\s*\/?\s*system-reminder\b[^>]*>/gi, replace: inertTag },
  // Closing (or opening) one of our wrappers, or a tag a chat template or another runtime wraps with, would let data escape its data_only envelope.
  { name: 'wrapper tag', pattern: new RegExp(`<\\s*\\/?\\s*(?:${[...WRAPPER_TAG_NAMES, 'skill', 'skill-file', 'user_input', 'user-input', 'system'].join('|')})\\b[^>]*>`, 'gi'), replace: inertTag },
  // Chat-template control tokens.
  { name: 'chat-template token', pattern: /<\|(?:im_start|im_end|endoftext|eot_id|start_header_id|end_header_id|end|system|user|assistant)\|>/gi, replace: (match) => `[${match.slice(2, -2)}]` },
  // A line claiming the user's input ended here (and what follows is from the system or the user).
  {
    name: 'end-of-user-input line',
    pattern: /^[ \t]*[-=#*[<(>{ ]*\s*end of (?:the )?user(?:['’]s)? (?:input|message|request|turn)\b.*$/gim,
    replace: (match) => `[neutralised: ${match.trim().replace(/[<>]/g, '')}]`,
  },
];

/** `<tag>` as `‹tag›`: still readable, no longer markup. */
function inertTag(match: string): string {
  return `‹${match.slice(1, -1)}›`;
}

/**
 * Cleans text from a remote source (an MCP server, a fetched page) of what
 * imitates our own control markers: a `<system-reminder>` block, a closing
 * wrapper tag, chat-template tokens, an end-of-user-input line. They are
 * made inert in place, not deleted, so the text still reads. Returns the
 * names of what was neutralised, for a diagnostic; none for clean text.
 */
export function neutraliseControlMarkers(text: string): { readonly text: string; readonly neutralised: readonly string[] } {
  let cleaned = text;
  const neutralised: string[] = [];
  for (const { name, pattern, replace } of PATTERNS) {
    let count = 0;
    cleaned = cleaned.replace(pattern, (match) => {
      count += 1;
      return replace(match);
    });
    if (count > 0) neutralised.push(`${count} ${name}${count === 1 ? '' : 's'}`);
  }
  return { text: cleaned, neutralised };
}
