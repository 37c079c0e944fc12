/**
 * The tags of every wrapper Strata writes around text: system-prompt
 * sections, the resident checkpoint, attachments, contributed messages,
 * tool outputs and the index of dropped outputs (output-index.ts). Text inside one of them is escaped by `escapeWrapped`, and
 * the validator checks their balance in every input (`wrapperBalanceProblem`).
 */
export const WRAPPER_TAG_NAMES = Object.freeze(['attachment', 'checkpoint', 'context_message', 'earlier_outputs', 'section', 'tool_output'] as const);

export type WrapperTagName = (typeof WRAPPER_TAG_NAMES)[number];

const NAMES = WRAPPER_TAG_NAMES.join('|');
/** Anything that starts like one of our tags, spaces around the slash allowed: broader than what is counted, so nothing counted survives escaping. */
const WRAPPER_START = new RegExp(`<(\\s*\\/?\\s*)(${NAMES})`, 'gi');
/** A tag as the balance check counts it: the name whole, then a space, `>`, `/` or the end. */
const WRAPPER_TAG = new RegExp(`<\\s*(\\/?)\\s*(${NAMES})(?=[\\s>/]|$)`, 'gi');

/**
 * Escapes markup that could open or close a wrapper (`<section`,
 * `</checkpoint`, `< /tool_output`, in any letter case), so text wrapped in
 * one cannot break out of it or forge another. Only the `<` changes, to
 * `&lt;`; the text still reads. Other markup, fake `<system>` tags and role
 * markers are left as they are: wrapped text is data by its place, and
 * third-party text never reaches a system-role message.
 */
export function escapeWrapped(content: string): string {
  return content.replace(WRAPPER_START, '&lt;$1$2');
}

/** An attribute value as a wrapper writes it: quotes and markup escaped. */
export function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/**
 * Whether the wrapper tags in `text` are balanced and none opens inside
 * another (Strata never nests them: what a wrapper holds is escaped):
 * undefined when so, else what is wrong first.
 */
export function wrapperBalanceProblem(text: string): string | undefined {
  let open: string | undefined;
  for (const match of text.matchAll(WRAPPER_TAG)) {
    const name = match[2]!.toLowerCase();
    if (match[1] !== '/') {
      if (open !== undefined) return `<${name}> at offset ${match.index} opens inside <${open}>`;
      open = name;
    } else if (open === undefined) return `</${name}> at offset ${match.index} closes nothing`;
    else if (open !== name) return `</${name}> at offset ${match.index} closes <${open}>`;
    else open = undefined;
  }
  return open === undefined ? undefined : `<${open}> is never closed`;
}
