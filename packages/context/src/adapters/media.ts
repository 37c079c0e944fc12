import type { MediaPart } from '../messages.js';

/**
 * A note in text where a format cannot carry a message's media:
 * `[not sent: image chart.png (image/png)]`. The model learns something was
 * there; the exporter's diagnostics say so to the caller.
 */
export function mediaNote(parts: readonly MediaPart[]): string {
  return parts.map((part) => `[not sent: ${part.type}${part.filename ? ` ${part.filename}` : ''} (${part.mediaType})]`).join('\n');
}

/** `data:<mediaType>;base64,<data>` for a part that holds its data; its URL otherwise. */
export function mediaUrl(part: MediaPart): string {
  return part.data !== undefined ? `data:${part.mediaType};base64,${part.data}` : part.url!;
}

/** Splits a base64 data URL; undefined for any other URL. */
export function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const match = /^data:([^;,]+)((?:;[^;,]*)*);base64,(.*)$/s.exec(url);
  if (!match) return undefined;
  return { mediaType: match[1]!, data: match[3]! };
}

/** A media part for a URL: a data URL becomes inline data, any other URL stays a URL. */
export function mediaFromUrl(options: { type: MediaPart['type']; url: string; mediaType?: string; filename?: string }): MediaPart {
  const inline = parseDataUrl(options.url);
  const mediaType = options.mediaType ?? inline?.mediaType ?? (options.type === 'image' ? 'image/*' : 'application/octet-stream');
  const part: MediaPart = inline ? { type: options.type, mediaType, data: inline.data } : { type: options.type, mediaType, url: options.url };
  return options.filename === undefined ? part : { ...part, filename: options.filename };
}

/** Bytes to base64 (no Buffer: this package runs anywhere). */
export function encodeBase64(bytes: Uint8Array): string {
  let binary = '';
  const CHUNK = 0x8000;
  for (let start = 0; start < bytes.length; start += CHUNK) binary += String.fromCharCode(...bytes.subarray(start, start + CHUNK));
  return btoa(binary);
}

/** UTF-8 text to base64. */
export function encodeBase64Text(text: string): string {
  return encodeBase64(new TextEncoder().encode(text));
}

/** Base64 to UTF-8 text; undefined when `data` is not base64 or not UTF-8. */
export function decodeBase64Text(data: string): string | undefined {
  try {
    const binary = atob(data);
    const bytes = Uint8Array.from(binary, (character) => character.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** Something an exporter could not carry into its format; not fatal. */
export interface AdapterDiagnostic {
  /**
   * `ADAPTER_MEDIA_NOT_SENT`: a format cannot carry an image or file there (a note replaces it).
   * `ADAPTER_ERROR_FLAG_NOT_SENT`: a failed tool result with media lost its error flag.
   */
  readonly code: 'ADAPTER_MEDIA_NOT_SENT' | 'ADAPTER_ERROR_FLAG_NOT_SENT';
  /** Index of the canonical message concerned. */
  readonly index: number;
  readonly message: string;
}

/** The media type of base64 image data from its first bytes (PNG, JPEG, GIF, WebP); `image/*` when unknown. */
export function imageMediaTypeOf(data: string): string {
  if (data.startsWith('iVBORw0KGgo')) return 'image/png';
  if (data.startsWith('/9j/')) return 'image/jpeg';
  if (data.startsWith('R0lGOD')) return 'image/gif';
  if (data.startsWith('UklGR')) return 'image/webp';
  return 'image/*';
}
