import type { SdkMessage } from './ai-sdk-history.js';

/**
 * Messages in the AI SDK's `ModelMessage` shape (what `toAiSdkMessages`
 * writes) in a language model's stricter prompt shape, the same in
 * `LanguageModelV2Prompt` (AI SDK 5, Mastra 0.24) and `LanguageModelV3Prompt`
 * (AI SDK 6): text content as a text part, images as file parts, media
 * given as a URL as `URL`s. System and tool messages are returned as they are.
 */
export function toPromptMessages<M extends SdkMessage = SdkMessage>(messages: readonly SdkMessage[]): M[] {
  return messages.map((message): M => {
    switch (message.role) {
      case 'user':
      case 'assistant': {
        const content = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : Array.isArray(message.content) ? (message.content as { readonly type: string }[]).map(promptPart) : message.content;
        return (message.role === 'user' ? { role: 'user', content } : { ...message, content }) as unknown as M;
      }
      default:
        return message as M;
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
