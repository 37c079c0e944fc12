/**
 * The canonical history: one provider-neutral, JSON-serializable message
 * model. Assembly never mutates it; adapters convert it to and from provider
 * shapes. Contributor messages and attachments never enter it.
 */
export type CanonicalMessage = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage;

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface SystemMessage {
  readonly role: 'system';
  readonly content: string;
}

export interface UserMessage {
  readonly role: 'user';
  readonly content: string;
  /**
   * Set on call-local messages the composer adds (observations, attachments):
   * hidden from the user's transcript, and `data_only` means its text is data,
   * never instructions.
   */
  readonly hidden?: boolean;
  readonly authority?: 'data_only';
  /** Marks a resident checkpoint written by the compactor. */
  readonly checkpoint?: boolean;
}

export interface ReasoningPart {
  readonly text: string;
  /** Provider data needed to send the reasoning back (signatures), kept verbatim. */
  readonly providerMetadata?: { readonly [provider: string]: JsonValue };
}

export interface ToolCall {
  readonly id: string;
  readonly name: string;
  /** Parsed arguments; a string when the model sent text that is not JSON. */
  readonly input: JsonValue;
}

export interface AssistantMessage {
  readonly role: 'assistant';
  readonly content: string;
  readonly reasoning?: readonly ReasoningPart[];
  readonly toolCalls?: readonly ToolCall[];
  /** Opaque provider data some providers need back verbatim with their history. */
  readonly providerMetadata?: { readonly [provider: string]: JsonValue };
}

/** Where a full tool-result body is kept, for `read_tool_output`. */
export interface ToolOutputRef {
  readonly id: string;
  /** UTF-16 length of the full body. */
  readonly chars: number;
  /** Count of `\n`, plus one when the body does not end with one; 0 for an empty body. */
  readonly lines: number;
  /** UTF-8 length of the full body. */
  readonly bytes: number;
}

export interface ToolResultMessage {
  readonly role: 'tool';
  readonly toolCallId: string;
  readonly toolName: string;
  readonly content: string;
  readonly isError?: boolean;
  readonly outputRef?: ToolOutputRef;
  /** Set by the compactor when `content` is a head/tail preview of the stored body. */
  readonly masked?: boolean;
}

export type CanonicalHistory = readonly CanonicalMessage[];

export function isToolResult(message: CanonicalMessage): message is ToolResultMessage {
  return message.role === 'tool';
}
