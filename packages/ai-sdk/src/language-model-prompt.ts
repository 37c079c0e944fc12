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

/**
 * A prompt message as the importer reads it: a user's `file` part, or a tool
 * result's `file-data` content, whose media type is an image (`image/png`,
 * `image/*`) is the image it is, so it is charged by the image rule the
 * canonical history uses for every image (as `prepareStep` charges it),
 * never as a file of that many bytes or as a fetched URL (the providers send
 * such a part as an image). Any other message is returned as it is.
 */
export function asImportedImages<M extends { readonly role: string; readonly content: unknown }>(message: M): M {
  if (!Array.isArray(message.content)) return message;
  const parts = message.content as unknown[];
  if (message.role === 'user' && parts.some(isImageFile)) {
    const content = parts.map((part) => {
      if (!isImageFile(part)) return part;
      const { data, mediaType, filename: _filename, ...rest } = part as { type: 'file'; data: unknown; mediaType: string; filename?: string };
      return { ...rest, type: 'image', image: data, ...(mediaType === 'image/*' ? {} : { mediaType }) };
    });
    return { ...message, content };
  }
  if (message.role === 'tool' && parts.some(hasImageFileOutput)) {
    const content = parts.map((part) => {
      if (!hasImageFileOutput(part)) return part;
      const result = part as { output: { type: 'content'; value: unknown[] } };
      const value = result.output.value.map((item) => {
        if (!isImageFileData(item)) return item;
        const { filename: _filename, ...rest } = item as { filename?: string };
        return { ...rest, type: 'image-data' };
      });
      return { ...result, output: { ...result.output, value } };
    });
    return { ...message, content };
  }
  return message;
}

function isImageType(mediaType: unknown): boolean {
  return typeof mediaType === 'string' && mediaType.toLowerCase().startsWith('image/');
}

function isImageFile(part: unknown): boolean {
  const fields = part as { type?: unknown; mediaType?: unknown } | null;
  return typeof fields === 'object' && fields !== null && fields.type === 'file' && isImageType(fields.mediaType);
}

function isImageFileData(item: unknown): boolean {
  const fields = item as { type?: unknown; mediaType?: unknown } | null;
  return typeof fields === 'object' && fields !== null && fields.type === 'file-data' && isImageType(fields.mediaType);
}

function hasImageFileOutput(part: unknown): boolean {
  const output = (part as { type?: unknown; output?: { type?: unknown; value?: unknown } } | null)?.output;
  return (part as { type?: unknown }).type === 'tool-result' && output?.type === 'content' && Array.isArray(output.value) && output.value.some(isImageFileData);
}
