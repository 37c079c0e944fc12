import type { LanguageModelMiddleware, ModelMessage } from 'ai';

/** A language model's call options (`LanguageModelV3CallOptions`), named through `ai` so no other package is needed. */
export type LanguageModelCallOptions = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0]['params'];
/** One message of a language model's prompt (`LanguageModelV3Message`). */
export type LanguageModelMessage = LanguageModelCallOptions['prompt'][number];

type UserContent = Extract<LanguageModelMessage, { role: 'user' }>['content'];
type AssistantContent = Extract<LanguageModelMessage, { role: 'assistant' }>['content'];

/**
 * `ModelMessage`s Strata wrote, in the prompt's stricter shape: text content
 * as a text part, images as file parts, media given as a URL as `URL`s.
 */
export function toLanguageModelMessages(messages: readonly ModelMessage[]): LanguageModelMessage[] {
  return messages.map((message): LanguageModelMessage => {
    switch (message.role) {
      case 'system':
        return message;
      case 'user':
        return { role: 'user', content: typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : (message.content.map(promptPart) as UserContent) };
      case 'assistant':
        return { ...message, content: typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : (message.content.map(promptPart) as AssistantContent) };
      case 'tool':
        return message as LanguageModelMessage;
    }
  });
}

/** A message part in the prompt's shape: images become files, URL strings become `URL`s. */
function promptPart(part: { readonly type: string }): unknown {
  if (part.type === 'image') {
    const { image, mediaType, ...rest } = part as { type: 'image'; image: unknown; mediaType?: string };
    return { ...rest, type: 'file', data: asData(image), mediaType: mediaType ?? 'image/*' };
  }
  if (part.type === 'file') {
    const file = part as { type: 'file'; data: unknown };
    return { ...file, data: asData(file.data) };
  }
  return part;
}

/** Base64 stays a string; a URL string (the only other string Strata writes) becomes a `URL`. */
function asData(value: unknown): unknown {
  return typeof value === 'string' && /^[a-z][a-z0-9+.-]*:/i.test(value) && URL.canParse(value) ? new URL(value) : value;
}
