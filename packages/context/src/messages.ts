/**
 * The canonical history: one provider-neutral, JSON-serializable message
 * model. Assembly never mutates it; adapters convert it to and from provider
 * shapes. Contributor messages and attachments never enter it. A message is
 * immutable once handed over: the checks and the counters remember a message
 * by its identity (that it passed, what it costs), so one changed in place
 * keeps what was remembered of it; give a new object instead.
 */
export type CanonicalMessage = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage;

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * An image or a file sent with a message, after its text. Exactly one of
 * `data` (base64, no `data:` prefix) and `url` is set. Adapters carry media
 * to every format that supports it and report (never silently drop) where a
 * format cannot.
 */
export interface MediaPart {
  readonly type: 'image' | 'file';
  /** IANA media type (`image/png`, `application/pdf`); `image/*` when an image URL did not say. */
  readonly mediaType: string;
  readonly data?: string;
  readonly url?: string;
  readonly filename?: string;
}

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
  /** Images and files sent after `content`. */
  readonly media?: readonly MediaPart[];
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
  /** Provider data some providers need back with the call (thought signatures), kept verbatim. */
  readonly providerMetadata?: { readonly [provider: string]: JsonValue };
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
  /** Images and files the tool returned, sent after `content`. */
  readonly media?: readonly MediaPart[];
}

export type CanonicalHistory = readonly CanonicalMessage[];

export function isToolResult(message: CanonicalMessage): message is ToolResultMessage {
  return message.role === 'tool';
}
