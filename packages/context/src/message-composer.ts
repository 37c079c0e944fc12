import type { ContextDiagnostic, ContributedMessage, DataAttachment } from './contributor.js';
import { buildHistoryUnits } from './history-units.js';
import type { CanonicalHistory, CanonicalMessage, ToolResultMessage, UserMessage } from './messages.js';
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
  /** History as the model may see it: orphans and interrupted calls made valid. */
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
 * Contributor messages go in the user role only, wrapped and marked
 * data_only; attachments are wrapped with their source and trust. A tool
 * result that answers no call is never sent as a tool message: it becomes a
 * data_only observation. A call left unanswered before later messages gets an
 * "interrupted" error result; only the newest step may stay open.
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
    const diagnostics: ContextDiagnostic[] = [];
    const units = buildHistoryUnits(options.history);
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
      if (unit.pendingCallIds.length > 0 && !isNewest) {
        const calls = first.role === 'assistant' ? first.toolCalls ?? [] : [];
        for (const callId of unit.pendingCallIds) {
          const name = calls.find((call) => call.id === callId)?.name ?? 'unknown';
          history.push(interruptedResult(callId, name));
          diagnostics.push({ code: 'CONTEXT_INTERRUPTED_TOOL_CALL', severity: 'warning', subject: `history[${unit.start}]`, message: `tool call "${callId}" at history[${unit.start}] has no result before later messages; answered as interrupted` });
        }
      }
    });
    const callLocal = [...fullCopies, ...options.attachments.map(wrapAttachment), ...options.messages.map(wrapContributedMessage)];
    return { history, callLocal, diagnostics };
  }
}
