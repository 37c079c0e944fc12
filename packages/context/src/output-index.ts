import type { CanonicalMessage, ToolCall, UserMessage } from './messages.js';
import { escapeWrapped } from './wrapper-markup.js';

type Entry = OutputIndexEntry;

// The way back to what the window drops: every stored result of a dropped
// step stays listed by reference, so the model can read any earlier output
// with one read_tool_output call. Seed 000: nothing leaves the input
// without a reference to bring it back.

/** The largest share of the history budget the index of dropped outputs may take. */
export const OUTPUT_INDEX_SHARE = 0.15;

/** The tag the index is wrapped in (see `WRAPPER_TAG_NAMES`). */
export const OUTPUT_INDEX_TAG = 'earlier_outputs';

/** Characters of a call's arguments an entry shows. */
const ARGUMENT_CHARS = 80;
/** Characters of a result's head an entry shows. */
const HEAD_CHARS = 100;

/** One stored result the window left out, with what the index may say of it. */
export interface OutputIndexEntry {
  readonly ref: string;
  readonly tool: string;
  readonly args: string;
  readonly head: string;
}

/**
 * How much of an entry is shown: whole (reference, tool, arguments in brief,
 * the first words of the result), brief (no head), or the reference alone
 * among the other references of its tool.
 */
type Fold = 'whole' | 'brief' | 'ref';

/** The newest dropped results an index shows whole; the next ones in brief; older ones by reference alone. */
const WHOLE_ENTRIES = 8;
const BRIEF_ENTRIES = 24;
/** References are left out this many at a time, oldest first, when even references alone exceed the bound. */
const OMITTED_STEP = 8;
/** The bound is taken in steps of this many tokens, so a budget that moves a little does not change the bytes. */
const BOUND_STEP = 128;

/**
 * The index of the stored results in `dropped` (whole units, oldest first),
 * as a data_only user message of at most `maxTokens` by `count`; undefined
 * when there is none to list or not even the line that says how to search
 * them fits. Entries fold by age as the run grows: the newest are shown
 * whole (reference, tool, arguments in brief, first words of the result),
 * older ones in brief, the oldest by reference alone. Over its bound, every
 * entry is a reference alone; still over, the oldest references are left
 * out, a few at a time, and a line says how many and how to search them.
 * The same dropped messages give the same bytes whenever the bound moves
 * less than a step, so an unchanged cut keeps the prompt prefix.
 */
export function outputIndexMessage(dropped: readonly CanonicalMessage[], maxTokens: number, count: (message: CanonicalMessage) => number): UserMessage | undefined {
  return outputIndexSearch(storedEntries(dropped), maxTokens, count).message;
}

/**
 * `outputIndexMessage` over the entries `storedEntries` gave for the dropped
 * messages (a caller may keep them per unit), searched from `guess` steps of omitted references
 * (the `omittedSteps` an earlier listing found: a cut that moved a little
 * moves the answer a little), with the steps it found. The same message
 * whatever the guess; only the number of renderings differs.
 */
export function outputIndexSearch(entries: readonly Entry[], maxTokens: number, count: (message: CanonicalMessage) => number, guess?: number): { message: UserMessage | undefined; omittedSteps: number | undefined } {
  return folded(entries, maxTokens, (omitted, refsUpTo, briefUpTo) => indexMessage(entries, omitted, refsUpTo, briefUpTo), count, guess);
}

/** The heading of the stored-outputs section a checkpoint carries (see `storedOutputsSection`). */
export const STORED_OUTPUTS_HEADING = '## Stored outputs';

/**
 * The section a checkpoint carries for the steps it summarises: their stored
 * results by reference, as the window's index lists dropped ones (and those
 * an earlier checkpoint among them listed, oldest first), folded the same way
 * within `maxTokens`. Written by the compactor, not the summarizer, so no
 * reference is lost to a summary. Empty when there is none.
 */
export function storedOutputsSection(summarized: readonly CanonicalMessage[], maxTokens: number, count: (message: CanonicalMessage) => number): string {
  const entries = [...summarized.flatMap(listedInCheckpoint), ...storedEntries(summarized)];
  const section = folded(entries, maxTokens, (omitted, refsUpTo, briefUpTo) => sectionMessage(entries, omitted, refsUpTo, briefUpTo), count).message;
  return section === undefined ? '' : section.content;
}

/**
 * The bound an index of at most `maxTokens` is folded to: whole steps of
 * `BOUND_STEP` (below one step, `maxTokens` itself). The same entries under
 * the same bound give the same message, so a caller may key a kept listing by it.
 */
export function outputIndexBound(maxTokens: number): number {
  return maxTokens >= BOUND_STEP ? Math.floor(maxTokens / BOUND_STEP) * BOUND_STEP : maxTokens;
}

/** The folding of `outputIndexMessage`, over any rendering of the entries, searched from `guess` as `outputIndexSearch` is. */
function folded(
  entries: readonly Entry[],
  maxTokens: number,
  render: (omitted: number, refsUpTo: number, briefUpTo: number) => UserMessage,
  count: (message: CanonicalMessage) => number,
  guess?: number,
): { message: UserMessage | undefined; omittedSteps: number | undefined } {
  const bound = outputIndexBound(maxTokens);
  if (entries.length === 0 || bound <= 0) return { message: undefined, omittedSteps: undefined };
  const fits = (message: UserMessage) => count(message) <= bound;
  const refsUpTo = Math.max(0, entries.length - WHOLE_ENTRIES - BRIEF_ENTRIES);
  const byAge = () => render(0, refsUpTo, Math.max(0, entries.length - WHOLE_ENTRIES));
  // The fewest steps of omitted references that fit (`fitsAt`). Searched from a guess (the answer for the last cut,
  // which moves little) or else from the most omitted, doubling the distance, then by bisection: each rendering costs
  // the entries it lists, not the run, and the listing by age (longer than every listing of references alone) is
  // rendered only when even no omission fits. Each rendering is made once: the answer is one of them.
  const renderings = new Map<number, UserMessage>();
  const withOmitted = (steps: number) => {
    let message = renderings.get(steps);
    if (message === undefined) renderings.set(steps, (message = render(Math.min(entries.length, steps * OMITTED_STEP), entries.length, entries.length)));
    return message;
  };
  // Omitting references puts a line in their place that says how many and how to search them: fewer omitted never take
  // fewer tokens, except that the line may cost more than the few references one step omits. So no omission is taken to
  // fit only when one step of it fits too, and the steps that fit are all those from the fewest on, whatever the start.
  const fitsAt = (steps: number) => fits(withOmitted(steps)) && (steps > 0 || fits(withOmitted(1)));
  const most = Math.ceil(entries.length / OMITTED_STEP);
  const start = guess === undefined ? most : Math.min(most, Math.max(0, guess));
  // `high` fits; `low` is the least that may.
  let high = most;
  let low = 0;
  if (fitsAt(start)) {
    high = start;
    for (let distance = 1; high > 0; distance *= 2) {
      const next = Math.max(0, high - distance);
      if (!fitsAt(next)) {
        low = next + 1;
        break;
      }
      high = next;
    }
  } else if (start === most || !fitsAt(most)) {
    const whole = byAge();
    return { message: fits(whole) ? whole : undefined, omittedSteps: undefined };
  } else {
    low = start + 1;
    for (let distance = 1; start + distance < most; distance *= 2) {
      if (fitsAt(start + distance)) {
        high = start + distance;
        break;
      }
      low = start + distance + 1;
    }
  }
  if (high === 0) {
    const whole = byAge();
    return { message: fits(whole) ? whole : withOmitted(0), omittedSteps: 0 };
  }
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (fitsAt(middle)) high = middle;
    else low = middle + 1;
  }
  return { message: withOmitted(low), omittedSteps: low };
}

/** The entries an earlier checkpoint's stored-outputs section lists, by reference and tool (their arguments and heads are not kept). */
function listedInCheckpoint(message: CanonicalMessage): Entry[] {
  if (message.role !== 'user' || message.checkpoint !== true) return [];
  const start = message.content.indexOf(`${STORED_OUTPUTS_HEADING}\n`);
  if (start < 0) return [];
  const entries: Entry[] = [];
  const lines = message.content.slice(start + STORED_OUTPUTS_HEADING.length + 1).split('\n');
  for (const line of lines.slice(lines.findIndex((candidate) => candidate.startsWith('- ')))) {
    if (!line.startsWith('- ')) break;
    const grouped = /^- ([^\s:]+): /.exec(line);
    const single = /^- ref="[^"]+" (\S+)/.exec(line);
    const tool = grouped?.[1] ?? single?.[1] ?? 'unknown';
    for (const match of line.matchAll(/ref="([^"]+)"/g)) entries.push({ ref: match[1]!, tool, args: '', head: '' });
  }
  return entries;
}

/** Each stored result's entry with the call input it was made from: made once per result, not per listing. */
const entryCache = new WeakMap<CanonicalMessage, { readonly input: unknown; readonly entry: Entry }>();

/** Every stored result of the messages, with its call's arguments (looked for among the messages before it). */
export function storedEntries(messages: readonly CanonicalMessage[]): Entry[] {
  const calls = new Map<string, ToolCall>();
  const entries: Entry[] = [];
  for (const message of messages) {
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) calls.set(call.id, call);
    if (message.role !== 'tool' || message.outputRef === undefined) continue;
    const input = calls.get(message.toolCallId)?.input;
    const cached = entryCache.get(message);
    if (cached !== undefined && cached.input === input) {
      entries.push(cached.entry);
      continue;
    }
    // A preview or a projected body opens with its reference header: its head is what follows it.
    const body = message.masked === true ? message.content.slice(message.content.indexOf('\n') + 1) : message.content;
    const entry: Entry = { ref: message.outputRef.id, tool: message.toolName, args: brief(JSON.stringify(input ?? {}), ARGUMENT_CHARS), head: brief(body, HEAD_CHARS) };
    entryCache.set(message, { input, entry });
    entries.push(entry);
  }
  return entries;
}

/**
 * Whitespace runs as one space, trimmed, cut to `chars` with an ellipsis:
 * the words joined by single spaces, read only as far as the cut (a
 * result's body may be long; only its first words are shown).
 */
function brief(text: string, chars: number): string {
  const words = /\S+/g;
  let flat = '';
  for (let word = words.exec(text); word !== null && flat.length <= chars; word = words.exec(text)) flat = flat === '' ? word[0] : `${flat} ${word[0]}`;
  return flat.length <= chars ? flat : `${flat.slice(0, chars)}…`;
}

/**
 * The index's lines with entries before `omitted` left out, those before
 * `refsUpTo` as references by tool, those before `briefUpTo` without heads,
 * the rest whole.
 */
function indexLines(entries: readonly Entry[], omitted: number, refsUpTo: number, briefUpTo: number): string {
  const lines: string[] = [];
  if (omitted > 0) lines.push(`- ${omitted} older stored outputs are not listed; read_tool_output with a query and no ref searches them all`);
  for (let index = omitted; index < entries.length; ) {
    const entry = entries[index]!;
    const fold: Fold = index < refsUpTo ? 'ref' : index < briefUpTo ? 'brief' : 'whole';
    if (fold === 'ref') {
      // Consecutive references of one tool share a line.
      const refs: string[] = [];
      while (index < refsUpTo && index < entries.length && entries[index]!.tool === entry.tool) refs.push(`ref="${entries[index++]!.ref}"`);
      lines.push(`- ${entry.tool}: ${refs.join(' ')}`);
      continue;
    }
    lines.push(`- ref="${entry.ref}" ${entry.tool}${entry.args === '' ? '' : ` ${entry.args}`}${fold === 'whole' && entry.head !== '' ? `: ${entry.head}` : ''}`);
    index += 1;
  }
  return lines.join('\n');
}

function indexMessage(entries: readonly Entry[], omitted: number, refsUpTo: number, briefUpTo: number): UserMessage {
  const content = `<${OUTPUT_INDEX_TAG} authority="data_only">\nEarlier tool results this window leaves out; read any of them whole with read_tool_output and its ref.\n${escapeWrapped(indexLines(entries, omitted, refsUpTo, briefUpTo))}\n</${OUTPUT_INDEX_TAG}>`;
  return { role: 'user', content, hidden: true, authority: 'data_only' };
}

/** The checkpoint section, as a message only to be counted (the checkpoint escapes its text when it wraps it). */
function sectionMessage(entries: readonly Entry[], omitted: number, refsUpTo: number, briefUpTo: number): UserMessage {
  return { role: 'user', content: `${STORED_OUTPUTS_HEADING}\nThe tool results this checkpoint summarises; read any of them whole with read_tool_output and its ref.\n${indexLines(entries, omitted, refsUpTo, briefUpTo)}` };
}
