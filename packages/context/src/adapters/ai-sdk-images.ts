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
