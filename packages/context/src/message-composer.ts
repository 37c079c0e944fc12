import { BoundedCache } from './bounded-cache.js';
import { recordSharedPrefix, roomyCopy, sharedPrefixLength } from './shared-prefix.js';
import { soundCheckpoint } from './checkpoint-format.js';
import type { ContextDiagnostic, ContributedMessage, DataAttachment } from './contributor.js';
import { ConfigurationError } from './errors/configuration-error.js';
import { ContextInputError } from './errors/context-input-error.js';
import { isTaskAnchorCandidate } from './history-units.js';
import type { AssistantMessage, CanonicalHistory, CanonicalMessage, ToolResultMessage, UserMessage } from './messages.js';
import { isSignedAssistant } from './signed-reasoning.js';
import { pairStep } from './tool-call-pairing.js';
import { MASK_PREVIEW_SHARE, PREVIEW_DEFAULTS, previewToolResult, type PreviewOptions } from './tool-result-preview.js';
import { escapeAttribute as attribute, escapeWrapped } from './wrapper-markup.js';

export interface MessageComposerOptions {
  /**
   * Observation masking as a view, for prompt caches: a stored tool result
   * is shown as its head/tail preview with its reference, the same bytes
   * every turn; the newest step's full bodies are sent once more as
   * call-local data after the history, so the model still reads them whole
   * while the history prefix never changes. The canonical history is not
   * touched. `true` masks every stored result that has a smaller preview;
   * `{ maxPreviewShare }` only those whose preview is at most that share of
   * the body (a small saving costs more in cache writes than it saves);
   * `false` none. Default: `MASK_PREVIEW_SHARE`, more the longer the run
   * has gone (what pays over as many turns again), and every smaller
   * preview for the steps after the context reached capacity
   * (`ComposeRequest.capacityStep`).
   */
  readonly maskStoredResults?: boolean | { readonly maxPreviewShare: number };
  /**
   * Tools whose results the view never masks: instructions the model must
   * read whole, such as a skill body (`read_skill`), which a preview would
   * silently cut. Default none.
   */
  readonly keepWholeTools?: readonly string[];
  readonly preview?: PreviewOptions;
}

export interface ComposedMessages {
  /**
   * History as the model may see it, valid for every provider: a user turn
   * first, every call id unique and answered right after its message,
   * arguments as objects, orphans as observations. A composer that keeps a
   * context's composition may return the same list again, grown at its end,
   * on a later call: a list only ever grows (its first messages stay as they
   * were), so whoever keeps one may trust the messages it held.
   */
  readonly history: readonly CanonicalMessage[];
  /** Call-local messages, sent after the history and never written back. */
  readonly callLocal: readonly UserMessage[];
  readonly diagnostics: readonly ContextDiagnostic[];
}

export interface ComposeRequest {
  readonly history: CanonicalHistory;
  readonly messages: readonly ContributedMessage[];
  readonly attachments: readonly DataAttachment[];
  /**
   * The context the history belongs to. When given, a composer may keep the
   * composition of the history's unchanged prefix for the next turn, so a
   * turn costs what was appended, not the whole history.
   */
  readonly contextId?: string;
  /**
   * The model step (the number of assistant messages in the history) at
   * which the context was first compacted or cut for size. By default the
   * stored results of later steps are masked whenever their preview is
   * smaller: at the cap every token saved also puts off the next cut, which
   * writes the whole kept prefix to the cache again. The results of earlier
   * steps keep the bytes they were sent with: changing one would write
   * everything after it to the cache again, for a saving the step rule
   * already judged too small. Once set for a context, keep it.
   */
  readonly capacityStep?: number;
  /** The same as `capacityStep: 0`: every stored result is masked whenever its preview is smaller. */
  readonly atCapacity?: boolean;
  /**
   * The newest step does not fit whole (seed 000: the latest step keeps its
   * call/result structure; large result bodies may become head/tail + ref):
   * its stored results are shown as their previews whenever smaller, and no
   * full copy of them goes after the history. Its calls never change.
   */
  readonly shrinkNewestStep?: boolean;
}

export interface ContextMessageComposer {
  compose(request: ComposeRequest): ComposedMessages;
}

/** What an empty user message becomes: providers reject empty text. */
export const EMPTY_USER_TEXT = '[empty message]';

/** The user turn put before a history that has no user request to open it: providers want a user turn first. */
export const CONVERSATION_OPENER_TEXT = '[The conversation so far has no user message before this point.]';

/** The user turn put between an assistant message and a signed one after it, so that the signed one opens its own turn. */
export const SIGNED_TURN_OPENER_TEXT = '[The assistant continues.]';

/** A data_only user turn, so it is never taken for the task anchor. */
function signedTurnOpener(): UserMessage {
  return dataOnlyMessage(SIGNED_TURN_OPENER_TEXT);
}

/** A hidden, call-local user message whose text is data, never instructions. */
export function dataOnlyMessage(content: string): UserMessage {
  return { role: 'user', content, hidden: true, authority: 'data_only' };
}

export function wrapAttachment(attachment: DataAttachment): UserMessage {
  return dataOnlyMessage(
    `<attachment id="${attribute(attachment.id)}" source="${attribute(attachment.source)}" trust="${attachment.trust}" authority="data_only">\n${escapeWrapped(attachment.content)}\n</attachment>`,
  );
}

export function wrapContributedMessage(message: ContributedMessage): UserMessage {
  return dataOnlyMessage(`<context_message id="${attribute(message.id)}" authority="data_only">\n${escapeWrapped(message.content)}\n</context_message>`);
}

function orphanAsData(result: ToolResultMessage): UserMessage {
  return dataOnlyMessage(
    `<tool_output tool="${attribute(result.toolName)}" call_id="${attribute(result.toolCallId)}" status="unmatched" authority="data_only">\n${escapeWrapped(result.content)}\n</tool_output>`,
  );
}

/** The newest step's full body, sent after the history while its tool message shows the preview. */
function fullCopy(result: ToolResultMessage): UserMessage {
  return dataOnlyMessage(
    `<tool_output tool="${attribute(result.toolName)}" call_id="${attribute(result.toolCallId)}" ref="${attribute(result.outputRef!.id)}" status="full" authority="data_only">\n${escapeWrapped(result.content)}\n</tool_output>`,
  );
}

/** The result a provider needs for a call that was interrupted before it answered. */
export function interruptedResult(callId: string, toolName: string): ToolResultMessage {
  return { role: 'tool', toolCallId: callId, toolName, content: '[no result: this tool call was interrupted before it finished]', isError: true };
}

/**
 * Prompt-cache prices per input token, relative to a new one: a token of the
 * prefix cached from the previous request, a new token, and a token written
 * to the cache (Anthropic's premium; OpenAI bills writes as new input).
 */
export const CACHE_PRICING = Object.freeze({ cachedToken: 0.1, newToken: 1, cacheWriteToken: 1.25 });

/**
 * The largest share of its body a preview may keep and still pay for itself
 * by the cache alone over `turnsAhead` more turns: masked, the body is sent
 * once uncached (new input instead of a cache write) and the preview is
 * written; each later turn reads the preview instead of the body. From
 * share * (write + cached * k) <= write - new + cached * k: a quarter for
 * one turn, 0.56 for ten, 0.76 for thirty. The turns ahead are not known;
 * the guess: a run goes on about as long again as it has gone, so the
 * result of a run's `step`th model step is `step` turns from its end.
 */
function payingPreviewShare(turnsAhead: number): number {
  const { cachedToken, newToken, cacheWriteToken } = CACHE_PRICING;
  const ahead = Math.max(1, turnsAhead);
  return (cacheWriteToken - newToken + cachedToken * ahead) / (cacheWriteToken + cachedToken * ahead);
}

/** How many contexts' compositions a composer keeps, the most recent ones. */
const CONTEXTS_KEPT = 256;

/**
 * The composition of a history's stable part: every message before its last
 * group (the last group may still grow, as results arrive), and the state the
 * next group is composed from.
 */
interface Composition {
  source: CanonicalHistory;
  /** How many messages `source` held when composed: the assembler's history list may since have grown in place. */
  sourceLength: number;
  /** Where the stable part ends in `source`: the start of its last group. */
  stableEnd: number;
  /**
   * The composed stable part: the first `stableLength` messages of `stable`. After each call `stable` is the list
   * that call returned (`output.composed`: the stable part, then the newest group), so the stable part is not a
   * second list of the history's messages; `keep` appends to it only at its end or where it already holds the same
   * message, and copies its stable part before writing anything else (a list once returned never changes but at its end).
   */
  stable: CanonicalMessage[];
  stableLength: number;
  readonly diagnostics: ContextDiagnostic[];
  /** Outgoing call ids the stable part uses. */
  readonly callIds: Set<string>;
  /** Whether a non-system message comes before the stable part's end (later system messages are moved). */
  conversationStarted: boolean;
  /** Model steps (assistant messages) in the stable part. */
  steps: number;
  /** The capacity step it was composed for (results of later steps masked whenever smaller); undefined: none. */
  capacityStep: number | undefined;
  /** Index in the stable part of its first non-system message, or -1. */
  firstTurn: number;
  hasTaskAnchor: boolean;
  /** The user turn sent before a history without one; the same object every turn. */
  opener?: UserMessage;
  /**
   * The history this composition last returned (the assembler's memory and window hold the same list), where its
   * opener went (-1: none), and how long its stable part was then.
   */
  output?: ComposedOutput;
}

/** What a composition last returned, for the next call (over the same history: the same list again). */
interface ComposedOutput {
  readonly history: readonly CanonicalMessage[];
  /** The stable part and the newest group before any opener: grown in place by the next call while it holds what it held. */
  readonly composed: CanonicalMessage[];
  /** Where the opener went (-1: none). */
  readonly openedAt: number;
  /** How many composed messages the composition held then. */
  readonly kept: number;
  /** Its diagnostics before the shrink notice, and the newest group with what it shrank for. */
  readonly diagnostics: readonly ContextDiagnostic[];
  readonly newest: ComposedGroup | undefined;
  readonly shrink: boolean;
}

/**
 * The stable part (the first `stableLength` of `stable`) and the newest group
 * as one list. When `stable` is the list the last call returned, it holds the
 * stable part already (`keep` copied it otherwise), and it is grown in place
 * while what follows the stable part in it is the start of the newest group:
 * appended steps then cost what they add, not a copy of the history; any other
 * change (the newest group composed differently, as when its results arrived)
 * makes a new list, so a list once returned never changes but at its end. A
 * `stable` that is not the last list was made by this composition (`keep`
 * copied it) and is nobody else's: it is cut to the stable part (a failed call
 * may have left a newest group on it) and grown in place.
 */
function grownOutput(previous: CanonicalMessage[] | undefined, stable: CanonicalMessage[], stableLength: number, newest: readonly CanonicalMessage[]): CanonicalMessage[] {
  if (stable === previous) {
    if (previous.length > stableLength + newest.length) return roomyCopy(stable, newest, stableLength);
    for (let index = stableLength; index < previous.length; index += 1) if (previous[index] !== newest[index - stableLength]) return roomyCopy(stable, newest, stableLength);
  } else {
    stable.length = stableLength;
  }
  for (let index = stable.length - stableLength; index < newest.length; index += 1) stable.push(newest[index]!);
  return stable;
}

/** Whether two valid copies of one assistant message make the same calls (their other fields are the message's own). */
function sameCalls(kept: AssistantMessage, made: AssistantMessage): boolean {
  const calls = made.toolCalls ?? [];
  const before = kept.toolCalls ?? [];
  return (
    before.length === calls.length &&
    before.every((call, position) => call.id === calls[position]!.id && (call.input === calls[position]!.input || JSON.stringify(call.input) === JSON.stringify(calls[position]!.input)))
  );
}

function emptyComposition(): Composition {
  return { source: [], sourceLength: 0, stableEnd: 0, stable: [], stableLength: 0, diagnostics: [], callIds: new Set(), conversationStarted: false, steps: 0, capacityStep: undefined, firstTurn: -1, hasTaskAnchor: false };
}

/** Where composition stands as it walks the history. */
interface ComposeCursor {
  conversationStarted: boolean;
  /** Model steps (assistant messages) so far, the current group's included. */
  steps: number;
}

/** One group of the history composed: a tool step, or a single message. */
interface ComposedGroup {
  readonly end: number;
  readonly messages: readonly CanonicalMessage[];
  readonly diagnostics: readonly ContextDiagnostic[];
  readonly callIds: readonly string[];
  /** The step's stored results shown as previews (masked view): their full bodies go after the history when it is the newest. */
  readonly previewed: readonly ToolResultMessage[];
}

/**
 * Makes the history valid for every provider and adds the call's data.
 * Contributor messages go in the user role only, wrapped and marked
 * data_only; attachments are wrapped with their source and trust. A tool
 * result that answers no call is never sent as a tool message: it becomes a
 * data_only observation. A call without a result right after its message
 * (open at the end, or answered out of place) gets an "interrupted" error
 * result. Duplicate or empty call ids and arguments that are not an object
 * are made valid in the outgoing copy (`pairStep`), except in a message with
 * signed reasoning (`signed-reasoning.ts`), which is never edited: such a
 * step is left out whole, with a diagnostic. A history with no user
 * request to open it gets a user turn first. An empty history is an input
 * error. The canonical history is never changed.
 *
 * Given a `contextId`, the composition of everything but the history's last
 * group is kept for the next turn: an append-only history is composed in the
 * time its new messages take. Any change to the kept part starts over.
 */
export class DefaultContextMessageComposer implements ContextMessageComposer {
  private readonly options: MessageComposerOptions;
  /**
   * Previews are made once per result, so each turn sends (and counts) the same objects. Only the previews made are
   * kept: a result without one (no reference, a short body: most results) is decided again, in a length check, not an entry per result.
   */
  private readonly previews = new WeakMap<ToolResultMessage, ToolResultMessage>();
  /** The newest step's full copies, made once per result, so each turn sends (and counts) the same objects. */
  private readonly fullCopies = new WeakMap<ToolResultMessage, UserMessage>();
  /** A cache: the same messages without it, only slower. */
  private readonly compositions = new BoundedCache<string, Composition>(CONTEXTS_KEPT);
  /** The copy last made of a message to make its step valid (new call ids, wrapped arguments), by the message. */
  private readonly validCopies = new WeakMap<CanonicalMessage, CanonicalMessage>();

  /** The largest preview, as a share of its body, shown instead of the body; 0: no masking. */
  private readonly maxPreviewShare: number;
  /** Masking as by default: every smaller preview once the context is at capacity. */
  private readonly byDefault: boolean;
  private readonly keepWhole: ReadonlySet<string>;

  constructor(options: MessageComposerOptions = {}) {
    this.options = options;
    this.byDefault = options.maskStoredResults === undefined;
    this.keepWhole = new Set(options.keepWholeTools ?? []);
    const mask = options.maskStoredResults ?? { maxPreviewShare: MASK_PREVIEW_SHARE };
    this.maxPreviewShare = mask === true ? 1 : mask === false ? 0 : mask.maxPreviewShare;
    if (!(this.maxPreviewShare >= 0 && this.maxPreviewShare <= 1)) {
      throw new ConfigurationError({ setting: 'maskStoredResults.maxPreviewShare', message: `maskStoredResults.maxPreviewShare must be between 0 and 1, got ${String(this.maxPreviewShare)}` });
    }
  }

  compose(request: ComposeRequest): ComposedMessages {
    const { history } = request;
    if (!history.some((message) => message.role !== 'system')) {
      throw new ContextInputError({ code: 'CONTEXT_HISTORY_EMPTY', culprit: 'history', message: `the history has ${history.length === 0 ? 'no messages' : 'only system messages'}: a model call needs a user message` });
    }
    const capacityStep = request.capacityStep ?? (request.atCapacity === true ? 0 : undefined);
    if (capacityStep !== undefined && !(Number.isInteger(capacityStep) && capacityStep >= 0)) {
      throw new ContextInputError({ code: 'CONTEXT_INVALID_CAPACITY_STEP', culprit: 'capacityStep', message: `compose capacityStep must be a non-negative integer, got ${String(capacityStep)}` });
    }
    const kept = this.resume(request.contextId, history, capacityStep);
    const shrink = request.shrinkNewestStep === true;
    // The same history as the last call (the assembler composes again to count exactly): the same messages, the same list.
    const last = kept?.output;
    if (kept !== undefined && last !== undefined && kept.source === history && kept.sourceLength === history.length && last.shrink === shrink) return this.finish(request, last.history, last.diagnostics, last.newest, shrink);
    const composition = kept ?? { ...emptyComposition(), capacityStep };
    // Groups before the last one become part of the kept composition; the last one is composed afresh each turn.
    let index = composition.stableEnd;
    let newest: ComposedGroup | undefined;
    const cursor = { conversationStarted: composition.conversationStarted, steps: composition.steps };
    while (index < history.length) {
      const group = this.composeGroup(history, index, composition.callIds, cursor, capacityStep, composition.stableLength > 0 ? composition.stable[composition.stableLength - 1] : undefined, shrink);
      if (group.end < history.length) this.keep(composition, group, cursor);
      else newest = group;
      composition.stableEnd = group.end < history.length ? group.end : index;
      index = group.end;
    }
    composition.source = history;
    composition.sourceLength = history.length;
    if (request.contextId !== undefined) this.compositions.set(request.contextId, composition);

    const composed = grownOutput(last?.composed, composition.stable, composition.stableLength, newest?.messages ?? []);
    composition.stable = composed;
    const diagnostics = composition.diagnostics.concat(newest?.diagnostics ?? []);
    const opened = this.withUserOpener(composition, composed, newest, diagnostics);
    this.recordOutput(kept, composition, opened, composed, { diagnostics, newest, shrink });
    return this.finish(request, opened, diagnostics, newest, shrink);
  }

  /** The composed history with the call-local messages: the newest step's full copies (unless shrunk), attachments, contributed messages. */
  private finish(request: ComposeRequest, opened: readonly CanonicalMessage[], diagnostics: readonly ContextDiagnostic[], newest: ComposedGroup | undefined, shrink: boolean): ComposedMessages {
    const fullCopies = newest && !shrink ? newest.previewed.map((result) => this.fullCopyOf(result)) : [];
    const callLocal = [...fullCopies, ...request.attachments.map(wrapAttachment), ...request.messages.map(wrapContributedMessage)];
    if (!(shrink && newest && newest.previewed.length > 0)) return { history: opened, callLocal, diagnostics };
    // A new list with the notice: the one given is kept for the next call, and is not copied when there is none (a long run's diagnostics grow with it).
    const notice: ContextDiagnostic = { code: 'CONTEXT_NEWEST_STEP_SHRUNK', severity: 'info', subject: 'history', message: `the newest step does not fit whole: ${newest.previewed.length} of its stored results are shown as head/tail previews with their references` };
    return { history: opened, callLocal, diagnostics: [...diagnostics, notice] };
  }

  /**
   * Records what this turn's composed history shares with the one the same
   * composition returned last (`recordSharedPrefix`): the composed messages
   * it kept then, which it still holds, with the opener where it was; so the
   * memory and the window take it in from the first message that changed.
   */
  private recordOutput(
    kept: Composition | undefined,
    composition: Composition,
    opened: readonly CanonicalMessage[],
    composed: CanonicalMessage[],
    rest: Pick<ComposedOutput, 'diagnostics' | 'newest' | 'shrink'>,
  ): void {
    const openedAt = opened === composed ? -1 : composition.firstTurn >= 0 ? composition.firstTurn : opened.indexOf(composition.opener!);
    const last = kept?.output;
    if (last !== undefined) {
      // Both without an opener: the kept messages; both with it at the same place: those and the opener; else up to the first opener.
      const shared = last.openedAt < 0 && openedAt < 0 ? last.kept : last.openedAt === openedAt ? (last.kept > openedAt ? last.kept + 1 : last.kept) : Math.min(last.kept, Math.max(0, Math.min(last.openedAt, openedAt)));
      recordSharedPrefix(last.history, opened, shared);
    }
    composition.output = { history: opened, composed, openedAt, kept: composition.stableLength, ...rest };
  }

  private fullCopyOf(result: ToolResultMessage): UserMessage {
    let copy = this.fullCopies.get(result);
    if (copy === undefined) this.fullCopies.set(result, (copy = fullCopy(result)));
    return copy;
  }

  /**
   * The kept composition of this context, when `history` still holds the
   * same messages up to and including the first one after the kept part
   * (that message is what ended the kept part's last group).
   */
  private resume(contextId: string | undefined, history: CanonicalHistory, capacityStep: number | undefined): Composition | undefined {
    if (contextId === undefined) return undefined;
    const kept = this.compositions.get(contextId);
    if (!kept || history.length <= kept.stableEnd || kept.capacityStep !== capacityStep) return undefined;
    // From what the facts say the two histories share (`sharedPrefixLength`): a turn walks what changed, not the history.
    return sharedPrefixLength(kept.source, history) > kept.stableEnd ? kept : undefined;
  }

  private keep(composition: Composition, group: ComposedGroup, cursor: ComposeCursor): void {
    composition.conversationStarted = cursor.conversationStarted;
    composition.steps = cursor.steps;
    for (const message of group.messages) {
      const at = composition.stableLength;
      if (composition.firstTurn < 0 && message.role !== 'system') composition.firstTurn = at;
      if (isTaskAnchorCandidate(message)) composition.hasTaskAnchor = true;
      // The list may be the one the last call returned: past the stable part it holds that call's newest group, which
      // is never written over (a copy of the stable part is made first) unless it is the same message.
      if (at < composition.stable.length && composition.stable[at] !== message) composition.stable = roomyCopy(composition.stable, [], at);
      if (at === composition.stable.length) composition.stable.push(message);
      composition.stableLength = at + 1;
    }
    composition.diagnostics.push(...group.diagnostics);
    for (const id of group.callIds) composition.callIds.add(id);
  }

  /**
   * Composes the group at `history[index]`, given the call ids used before it,
   * whether the conversation has started and the message composed before it.
   * A signed message right after an assistant message gets a user turn
   * before it (`SIGNED_TURN_OPENER_TEXT`): Anthropic merges consecutive
   * assistant messages, and a signed turn's thinking must open its message.
   */
  private composeGroup(history: CanonicalHistory, index: number, callIds: ReadonlySet<string>, cursor: ComposeCursor, capacityStep: number | undefined, previous: CanonicalMessage | undefined, shrinkNewest: boolean): ComposedGroup {
    const group = this.composeMessages(history, index, callIds, cursor, capacityStep, shrinkNewest);
    const first = group.messages[0];
    if (previous?.role !== 'assistant' || first === undefined || first !== history[index] || !isSignedAssistant(first)) return group;
    return { ...group, messages: [signedTurnOpener(), ...group.messages] };
  }

  private composeMessages(history: CanonicalHistory, index: number, callIds: ReadonlySet<string>, cursor: ComposeCursor, capacityStep: number | undefined, shrinkNewest: boolean): ComposedGroup {
    const message = history[index]!;
    const single = (messages: readonly CanonicalMessage[], diagnostics: readonly ContextDiagnostic[] = []): ComposedGroup => ({ end: index + 1, messages, diagnostics, callIds: [], previewed: [] });
    const subject = `history[${index}]`;
    if (message.role === 'assistant') cursor.steps += 1;
    if (message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0) {
      const step = pairStep(history, index, callIds);
      // A signed message is never edited: one that would need new ids or wrapped arguments is left out with its results.
      if (step.assistant !== message && isSignedAssistant(message)) {
        const reasons = step.diagnostics.map((diagnostic) => diagnostic.message).join('; ');
        return {
          end: step.end,
          messages: [],
          diagnostics: [{ code: 'CONTEXT_SIGNED_STEP_DROPPED', severity: 'warning', subject, message: `assistant message at ${subject} carries signed reasoning and cannot go out as it is (${reasons}); its step (${step.end - index} messages) is left out whole` }],
          callIds: [],
          previewed: [],
        };
      }
      cursor.conversationStarted = true;
      const messages: CanonicalMessage[] = [this.reused(message, step.assistant, sameCalls)];
      const previewed: ToolResultMessage[] = [];
      // The newest step shrunk shows every smaller preview, whatever the view's share.
      const shrunk = shrinkNewest && step.end === history.length;
      const atCapacity = shrunk || (capacityStep !== undefined && cursor.steps > capacityStep);
      for (const [position, made] of step.results.entries()) {
        // The step's results are the messages right after its call, in order.
        const result = this.reused(history[index + 1 + position]!, made, (kept, next) => kept.toolCallId === next.toolCallId);
        const preview = this.keepWhole.has(result.toolName) || (this.maxPreviewShare === 0 && !shrunk) ? undefined : this.previewOf(result, atCapacity, shrunk, cursor.steps);
        messages.push(preview ?? result);
        if (preview) previewed.push(result);
      }
      const diagnostics = [...step.diagnostics];
      for (const callId of step.pendingCallIds) {
        const name = step.assistant.toolCalls!.find((call) => call.id === callId)?.name ?? 'unknown';
        messages.push(interruptedResult(callId, name));
        diagnostics.push({ code: 'CONTEXT_INTERRUPTED_TOOL_CALL', severity: 'warning', subject, message: `tool call "${callId}" at ${subject} has no result right after it; answered as interrupted` });
      }
      return { end: step.end, messages, diagnostics, callIds: step.callIds, previewed };
    }
    if (message.role === 'tool') {
      cursor.conversationStarted = true;
      return single([orphanAsData(message)], [
        { code: 'CONTEXT_ORPHAN_TOOL_RESULT', severity: 'warning', subject, message: `tool result at ${subject} (call id "${message.toolCallId}", tool "${message.toolName}") answers no pending call; sent as a data_only observation instead` },
      ]);
    }
    if (message.role === 'system') {
      // An empty system text is an empty text block to Anthropic, and says nothing.
      if (message.content.trim() === '') return single([], [{ code: 'CONTEXT_EMPTY_MESSAGE', severity: 'info', subject, message: `system message at ${subject} has no text; left out` }]);
      // A system message's text is the host's; still, it can neither open nor close one of our wrappers.
      const content = escapeWrapped(message.content);
      if (!cursor.conversationStarted) return single([content === message.content ? message : { ...message, content }]);
      return single([dataOnlyMessage(content)], [
        { code: 'CONTEXT_SYSTEM_MESSAGE_MOVED', severity: 'info', subject, message: `system message at ${subject} comes after the conversation started; sent as a data_only user message` },
      ]);
    }
    cursor.conversationStarted = true;
    if (message.role === 'user' && message.checkpoint === true) return single([soundCheckpoint(message)]);
    if (message.content.trim() !== '') return single([message]);
    // Providers reject empty text turns (Anthropic even whitespace): keep a user turn visible, drop an empty answer.
    const diagnostic: ContextDiagnostic = { code: 'CONTEXT_EMPTY_MESSAGE', severity: 'info', subject, message: `${message.role} message at ${subject} has no text; ${message.role === 'user' ? 'sent as "[empty message]"' : 'left out'}` };
    return single(message.role === 'user' ? [{ ...message, content: EMPTY_USER_TEXT }] : [], [diagnostic]);
  }

  /**
   * `made`, the copy this call made of `source` to make its step valid, or
   * the copy made last time when it is the same (`same`): a step whose ids
   * are replaced is then the same objects every turn, so the composed list
   * grows in place, and its previews and counts are kept.
   */
  private reused<Message extends CanonicalMessage>(source: CanonicalMessage, made: Message, same: (kept: Message, made: Message) => boolean): Message {
    if (made === source) return made;
    const kept = this.validCopies.get(source) as Message | undefined;
    if (kept !== undefined && same(kept, made)) return kept;
    this.validCopies.set(source, made);
    return made;
  }

  /**
   * The result's preview when it is shown masked (its step the `step`th of
   * the run; `atCapacity` when that step came after the context reached
   * capacity). The preview is made once per result, and whether it is shown
   * depends only on its step, fixed while the history keeps its prefix: a
   * result's bytes never change while it stays in the history (a compaction
   * projects the body of a result in the canonical history itself).
   */
  private previewOf(result: ToolResultMessage, atCapacity: boolean, shrunk: boolean, step: number): ToolResultMessage | undefined {
    let preview = this.previews.get(result);
    if (preview === undefined) {
      preview = previewToolResult(result, this.options.preview ?? PREVIEW_DEFAULTS);
      if (preview === undefined) return undefined;
      this.previews.set(result, preview);
    }
    const share = shrunk ? 1 : !this.byDefault ? this.maxPreviewShare : atCapacity ? 1 : Math.max(this.maxPreviewShare, payingPreviewShare(step));
    return preview.content.length <= result.content.length * share ? preview : undefined;
  }

  /**
   * Providers want a user turn first (Anthropic rejects anything else), and
   * the window keeps the latest real user request as the task anchor: a
   * history with neither gets one user turn before its first non-system message.
   */
  private withUserOpener(composition: Composition, composed: CanonicalMessage[], newest: ComposedGroup | undefined, diagnostics: ContextDiagnostic[]): CanonicalMessage[] {
    const first = composition.firstTurn >= 0 ? composition.firstTurn : composed.findIndex((message) => message.role !== 'system');
    if (first < 0) {
      throw new ContextInputError({ code: 'CONTEXT_HISTORY_EMPTY', culprit: 'history', message: 'the history has no message with text besides system messages: a model call needs a user message' });
    }
    const hasTaskAnchor = composition.hasTaskAnchor || (newest?.messages.some(isTaskAnchorCandidate) ?? false);
    if (composed[first]!.role === 'user' && hasTaskAnchor) return composed;
    composition.opener ??= { role: 'user', content: CONVERSATION_OPENER_TEXT };
    diagnostics.push({ code: 'CONTEXT_USER_TURN_ADDED', severity: 'info', subject: 'history', message: 'the history has no user request before its first turn; a user turn is sent before it' });
    return [...composed.slice(0, first), composition.opener, ...composed.slice(first)];
  }
}
