import type { ContextDiagnostic, ContributedMessage, DataAttachment } from './contributor.js';
import { ContextInputError } from './errors/context-input-error.js';
import { buildHistoryUnits, isTaskAnchorCandidate } from './history-units.js';
import type { CanonicalHistory, CanonicalMessage, ToolResultMessage, UserMessage } from './messages.js';
import { pairToolCalls } from './tool-call-pairing.js';
import { PREVIEW_DEFAULTS, previewToolResult, type PreviewOptions } from './tool-result-preview.js';

export interface MessageComposerOptions {
  /**
   * Observation masking as a view, for prompt caches: every stored tool
   * result is shown as its head/tail preview with its reference, the same
   * bytes every turn; the newest step's full bodies are sent once more as
   * call-local data after the history, so the model still reads them whole
   * while the history prefix never changes. The canonical history is not
   * touched. Default false.
   */
  readonly maskStoredResults?: boolean;
  readonly preview?: PreviewOptions;
}

export interface ComposedMessages {
  /**
   * History as the model may see it, valid for every provider: a user turn
   * first, every call id unique and answered right after its message,
   * arguments as objects, orphans as observations.
   */
  readonly history: readonly CanonicalMessage[];
  /** Call-local messages, sent after the history and never written back. */
  readonly callLocal: readonly UserMessage[];
  readonly diagnostics: readonly ContextDiagnostic[];
}

export interface ContextMessageComposer {
  compose(options: { history: CanonicalHistory; messages: readonly ContributedMessage[]; attachments: readonly DataAttachment[] }): ComposedMessages;
}

/** What an empty user message becomes: providers reject empty text. */
export const EMPTY_USER_TEXT = '[empty message]';

/** The user turn put before a history that has no user request to open it: providers want a user turn first. */
export const CONVERSATION_OPENER_TEXT = '[The conversation so far has no user message before this point.]';

const WRAPPER_TAGS = /<(\/?)(attachment|context_message|tool_output)/gi;

/** Escapes markup that could close or open a wrapper, so data cannot break out of it. */
export function escapeWrapped(content: string): string {
  return content.replace(WRAPPER_TAGS, '&lt;$1$2');
}

function attribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
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
 * Makes the history valid for every provider and adds the call's data.
 * Contributor messages go in the user role only, wrapped and marked
 * data_only; attachments are wrapped with their source and trust. A tool
 * result that answers no call is never sent as a tool message: it becomes a
 * data_only observation. A call without a result right after its message
 * (open at the end, or answered out of place) gets an "interrupted" error
 * result. Duplicate or empty call ids and arguments that are not an object
 * are made valid in the outgoing copy (`pairToolCalls`). A history with no
 * user request to open it gets a user turn first. An empty history is an
 * input error. The canonical history is never changed.
 */
export class DefaultContextMessageComposer implements ContextMessageComposer {
  private readonly options: MessageComposerOptions;
  /** Previews are made once per result, so each turn sends (and counts) the same objects. */
  private readonly previews = new WeakMap<ToolResultMessage, ToolResultMessage | null>();

  constructor(options: MessageComposerOptions = {}) {
    this.options = options;
  }

  private previewOf(result: ToolResultMessage): ToolResultMessage | undefined {
    let preview = this.previews.get(result);
    if (preview === undefined) {
      preview = previewToolResult(result, this.options.preview ?? PREVIEW_DEFAULTS) ?? null;
      this.previews.set(result, preview);
    }
    return preview ?? undefined;
  }

  compose(options: { history: CanonicalHistory; messages: readonly ContributedMessage[]; attachments: readonly DataAttachment[] }): ComposedMessages {
    if (!options.history.some((message) => message.role !== 'system')) {
      throw new ContextInputError({ code: 'CONTEXT_HISTORY_EMPTY', culprit: 'history', message: `the history has ${options.history.length === 0 ? 'no messages' : 'only system messages'}: a model call needs a user message` });
    }
    const paired = pairToolCalls(options.history);
    const diagnostics: ContextDiagnostic[] = paired.diagnostics;
    const units = buildHistoryUnits(paired.history);
    const history: CanonicalMessage[] = [];
    const fullCopies: UserMessage[] = [];
    let conversationStarted = false;
    units.forEach((unit, unitIndex) => {
      const first = unit.messages[0]!;
      if (unit.kind === 'orphan-result') {
        const result = first as ToolResultMessage;
        diagnostics.push({
          code: 'CONTEXT_ORPHAN_TOOL_RESULT',
          severity: 'warning',
          subject: `history[${unit.start}]`,
          message: `tool result at history[${unit.start}] (call id "${result.toolCallId}", tool "${result.toolName}") answers no pending call; sent as a data_only observation instead`,
        });
        history.push(orphanAsData(result));
        conversationStarted = true;
        return;
      }
      if (first.role === 'system' && first.content.trim() === '') {
        // An empty system text is an empty text block to Anthropic, and says nothing.
        diagnostics.push({ code: 'CONTEXT_EMPTY_MESSAGE', severity: 'info', subject: `history[${unit.start}]`, message: `system message at history[${unit.start}] has no text; left out` });
        return;
      }
      if (first.role === 'system' && conversationStarted) {
        diagnostics.push({ code: 'CONTEXT_SYSTEM_MESSAGE_MOVED', severity: 'info', subject: `history[${unit.start}]`, message: `system message at history[${unit.start}] comes after the conversation started; sent as a data_only user message` });
        history.push(dataOnlyMessage(first.content));
        return;
      }
      if (first.role !== 'system') conversationStarted = true;
      if ((first.role === 'user' || (first.role === 'assistant' && unit.kind === 'message')) && first.content.trim() === '') {
        // Providers reject empty text turns (Anthropic even whitespace): keep a user turn visible, drop an empty answer.
        diagnostics.push({ code: 'CONTEXT_EMPTY_MESSAGE', severity: 'info', subject: `history[${unit.start}]`, message: `${first.role} message at history[${unit.start}] has no text; ${first.role === 'user' ? 'sent as "[empty message]"' : 'left out'}` });
        if (first.role === 'user') history.push({ ...first, content: EMPTY_USER_TEXT });
        return;
      }
      const isNewest = unitIndex === units.length - 1;
      if (this.options.maskStoredResults && unit.kind === 'tool-step') {
        for (const message of unit.messages) {
          const preview = message.role === 'tool' ? this.previewOf(message) : undefined;
          history.push(preview ?? message);
          if (preview && isNewest) fullCopies.push(fullCopy(message as ToolResultMessage));
        }
      } else history.push(...unit.messages);
      if (unit.pendingCallIds.length > 0) {
        const calls = first.role === 'assistant' ? first.toolCalls ?? [] : [];
        for (const callId of unit.pendingCallIds) {
          const name = calls.find((call) => call.id === callId)?.name ?? 'unknown';
          history.push(interruptedResult(callId, name));
          diagnostics.push({ code: 'CONTEXT_INTERRUPTED_TOOL_CALL', severity: 'warning', subject: `history[${unit.start}]`, message: `tool call "${callId}" at history[${unit.start}] has no result right after it; answered as interrupted` });
        }
      }
    });
    const opened = withUserOpener(history, diagnostics);
    const callLocal = [...fullCopies, ...options.attachments.map(wrapAttachment), ...options.messages.map(wrapContributedMessage)];
    return { history: opened, callLocal, diagnostics };
  }
}

/**
 * Providers want a user turn first (Anthropic rejects anything else), and the
 * window keeps the latest real user request as the task anchor: a history
 * with neither gets one user turn before its first non-system message.
 */
function withUserOpener(history: CanonicalMessage[], diagnostics: ContextDiagnostic[]): CanonicalMessage[] {
  const first = history.findIndex((message) => message.role !== 'system');
  if (first < 0) {
    throw new ContextInputError({ code: 'CONTEXT_HISTORY_EMPTY', culprit: 'history', message: 'the history has no message with text besides system messages: a model call needs a user message' });
  }
  if ((history[first]!.role === 'user' && history.some(isTaskAnchorCandidate))) return history;
  diagnostics.push({ code: 'CONTEXT_USER_TURN_ADDED', severity: 'info', subject: `history[${first}]`, message: `the history has no user request before history[${first}]; a user turn is sent before it` });
  return [...history.slice(0, first), { role: 'user', content: CONVERSATION_OPENER_TEXT }, ...history.slice(first)];
}
