// Later-use recall: of what a recorded answer used from earlier in its run,
// how much the model could see or read back at that call.
import { messageText, type CanonicalHistory, type CanonicalMessage, type ToolOutputStore } from '@strata/context';
import { createReadToolOutputTool } from '@strata/tools';

/** Identifiers, numbers and paths: 4+ characters of word, dot, slash or dash holding a digit, `_` or `/`. */
const LATER_USE_VALUE = /[A-Za-z0-9_./-]{4,}/g;

/**
 * What an assistant message used: the later-use values of its text and of
 * its call arguments' values (not their keys: parameter names come from the
 * tool's schema, not from the history), each once, in order.
 */
export function usedValues(message: CanonicalMessage): string[] {
  if (message.role !== 'assistant') return [];
  const text = [message.content, ...(message.toolCalls ?? []).flatMap((call) => argumentValues(call.input))].join('\n');
  const found = new Set<string>();
  for (const match of text.matchAll(LATER_USE_VALUE)) {
    const value = match[0].replace(/^[./-]+|[./-]+$/g, '');
    if (value.length >= 4 && /[0-9_/]/.test(value)) found.add(value);
  }
  return [...found];
}

/** The strings and numbers of a call's input, depth first; a raw (unparsed) input is one string. */
function argumentValues(input: unknown): string[] {
  if (typeof input === 'string') return [input];
  if (typeof input === 'number' || typeof input === 'bigint') return [String(input)];
  if (Array.isArray(input)) return input.flatMap(argumentValues);
  if (typeof input === 'object' && input !== null) return Object.values(input).flatMap(argumentValues);
  return [];
}

export interface LaterUseRecallOptions {
  /** The recorded run. */
  readonly trajectory: CanonicalHistory;
  /** Index in `trajectory` of the assistant message this call produced: its recorded answer. */
  readonly callIndex: number;
  /** The model input assembled for this call, as a provider would receive it. */
  readonly input: readonly CanonicalMessage[];
  /** Where the policy stored tool outputs; absent for a policy that keeps no copy (nothing is readable). */
  readonly store?: ToolOutputStore;
  /** The context `read_tool_output` reads in (the policy's run). Required with `store`. */
  readonly contextId?: string;
}

export interface LaterUseRecall {
  /** The answer's values that the run held before the call, outside the protected prompt (see laterUseRecall). */
  readonly needed: readonly string[];
  /** Needed values in the text of the call's input. */
  readonly visible: readonly string[];
  /** Needed values not visible, but readable through a reference whose id the input shows. */
  readonly byReference: readonly string[];
  /** Needed values neither visible nor readable through a shown reference. */
  readonly missed: readonly string[];
}

/**
 * Later-use recall of one model call. A value (see `usedValues`) is needed
 * when the call's recorded answer uses it, an earlier tool result or user
 * message holds it, and its first occurrence before the call is in neither a
 * system message nor the run's first user request. (The system prompt and the
 * task are kept by every policy; counting what first came from them would only
 * pad the share. A value only the model's own earlier answers held is what a
 * checkpoint summary carries, and the replay runs no summarizer.)
 * A needed value is recalled when it is
 * visible (in the text of some input message: content, reasoning, call
 * arguments), or else readable: the input's text shows the id of a stored
 * output (a whole word) whose body holds the value, and a `read_tool_output`
 * query for the value on that id, in `contextId`, answers with a line holding
 * it. A reference the input does not show does not count, even when some
 * stored output holds the value: the model cannot know to ask for it.
 */
export async function laterUseRecall(options: LaterUseRecallOptions): Promise<LaterUseRecall> {
  const { trajectory, callIndex, input } = options;
  const texts = trajectoryTexts(trajectory);
  const protectedIndex = new Set<number>();
  const firstUser = trajectory.findIndex((message) => message.role === 'user');
  if (firstUser >= 0) protectedIndex.add(firstUser);
  trajectory.forEach((message, index) => message.role === 'system' && protectedIndex.add(index));
  const answer = trajectory[callIndex];
  // One pass per value: its first occurrence must be outside the system prompt and the task, and some tool result or user message must hold it.
  const needed = (answer === undefined ? [] : usedValues(answer)).filter((value) => {
    let seen = false;
    for (let position = 0; position < callIndex; position += 1) {
      if (!texts[position]!.includes(value)) continue;
      if (!seen && protectedIndex.has(position)) return false;
      seen = true;
      const role = trajectory[position]!.role;
      if (role === 'tool' || role === 'user') return true;
    }
    return false;
  });
  const inputText = input.map((message) => messageText(message)).join('\n');
  const visible = needed.filter((value) => inputText.includes(value));
  const hidden = needed.filter((value) => !inputText.includes(value));
  const byReference: string[] = [];
  if (hidden.length > 0 && options.store !== undefined) {
    const shown = await shownReferences(options.store, options.contextId!, inputText);
    const tool = readTool(options.store);
    for (const value of hidden) {
      for (const [ref, body] of shown) {
        if (!body.includes(value)) continue;
        const outcome = await tool.execute({ ref, query: value } as never, { contextId: options.contextId!, toolCallId: 'later-use-recall', signal: new AbortController().signal });
        // The first line is the answer's header (it quotes the query); the lines after it are what was found.
        if (outcome.isError !== true && outcome.content.slice(outcome.content.indexOf('\n') + 1).includes(value)) {
          byReference.push(value);
          break;
        }
      }
    }
  }
  const readable = new Set(byReference);
  return { needed, visible, byReference, missed: hidden.filter((value) => !readable.has(value)) };
}

const textsOf = new WeakMap<CanonicalHistory, string[]>();
function trajectoryTexts(trajectory: CanonicalHistory): string[] {
  let texts = textsOf.get(trajectory);
  if (texts === undefined) textsOf.set(trajectory, (texts = trajectory.map((message) => messageText(message))));
  return texts;
}

const toolsOf = new WeakMap<ToolOutputStore, ReturnType<typeof createReadToolOutputTool>>();
function readTool(store: ToolOutputStore): ReturnType<typeof createReadToolOutputTool> {
  let tool = toolsOf.get(store);
  if (tool === undefined) toolsOf.set(store, (tool = createReadToolOutputTool({ store })));
  return tool;
}

/** Stored bodies by reference, per store: a stored output never changes, and reading one back checks its digest. */
const bodiesOf = new WeakMap<ToolOutputStore, Map<string, string>>();

/** The stored outputs of `contextId` whose id the text shows as a whole word, with their bodies. */
async function shownReferences(store: ToolOutputStore, contextId: string, text: string): Promise<Array<[string, string]>> {
  let bodies = bodiesOf.get(store);
  if (bodies === undefined) bodiesOf.set(store, (bodies = new Map()));
  const shown: Array<[string, string]> = [];
  for (const entry of (await store.list?.(contextId)) ?? []) {
    if (!containsWord(text, entry.refId)) continue;
    let body = bodies.get(entry.refId);
    if (body === undefined) {
      body = (await store.get(entry.refId))?.body;
      if (body === undefined) continue;
      bodies.set(entry.refId, body);
    }
    shown.push([entry.refId, body]);
  }
  return shown;
}

const WORD_CHARACTER = /[A-Za-z0-9_-]/;
function containsWord(text: string, word: string): boolean {
  for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1)) {
    if (!WORD_CHARACTER.test(text[at - 1] ?? ' ') && !WORD_CHARACTER.test(text[at + word.length] ?? ' ')) return true;
  }
  return false;
}
