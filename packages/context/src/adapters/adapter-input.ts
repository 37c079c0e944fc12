// Readers for untrusted provider-format input: each names the field path and
// what was expected, so any JSON value gives a canonical history or one
// ContextInputError. Hand-written because the shapes are ours to define per
// format and the checks must stay iterative and cheap (no schema library walks
// a 100,000-level value without recursion).
import { checkJsonValue, checkMediaPart } from '../canonical-history-check.js';
import { ContextInputError } from '../errors/context-input-error.js';
import type { JsonValue, MediaPart } from '../messages.js';

/** The error code of a malformed provider-format message. */
export const MESSAGE_INVALID = 'CONTEXT_MESSAGE_INVALID';

export type Fields = Record<string, unknown>;

/**
 * A value of the wrong shape at `path`. Where one of named values was
 * expected (`'"user" or "assistant"'`) and a short name came (a role, a
 * type), the name is shown (`got "exit"`); anything else is described by its
 * kind only, never printed (it may be huge or private).
 */
export function unexpected(path: string, expected: string, actual: unknown): ContextInputError {
  if (expected.startsWith('"') && typeof actual === 'string' && SHOWN_NAME.test(actual)) return invalid(path, expected, JSON.stringify(actual));
  return ContextInputError.unexpected({ code: MESSAGE_INVALID, path, expected, actual });
}

/** A name short and plain enough to print in an error: up to 40 letters, digits and `_-.:/`. */
const SHOWN_NAME = /^[\w.:/-]{0,40}$/;

/** Like `unexpected`, with what was found said in words (`"c1" twice`, `text that is not JSON`). */
export function invalid(path: string, expected: string, found: string): ContextInputError {
  return new ContextInputError({ code: MESSAGE_INVALID, culprit: path, message: `${path}: expected ${expected}, got ${found}` });
}

export function unsupported(path: string, what: string): ContextInputError {
  return new ContextInputError({ code: 'CONTEXT_MESSAGE_UNSUPPORTED', culprit: path, message: `${path}: ${what}` });
}

export function isRecord(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function readRecord(value: unknown, path: string, expected: string): Fields {
  if (!isRecord(value)) throw unexpected(path, expected, value);
  return value;
}

export function readArray(value: unknown, path: string, expected: string): readonly unknown[] {
  if (!Array.isArray(value)) throw unexpected(path, expected, value);
  return value;
}

export function readString(value: unknown, path: string): string {
  if (typeof value !== 'string') throw unexpected(path, 'a string', value);
  return value;
}

export function readNonEmptyString(value: unknown, path: string): string {
  if (value === '') throw invalid(path, 'a non-empty string', '""');
  if (typeof value !== 'string') throw unexpected(path, 'a non-empty string', value);
  return value;
}

export function readOptionalString(value: unknown, path: string): string | undefined {
  return value === undefined ? undefined : readString(value, path);
}

export function readOptionalBoolean(value: unknown, path: string): boolean | undefined {
  if (value !== undefined && typeof value !== 'boolean') throw unexpected(path, 'a boolean', value);
  return value;
}

export function readJson(value: unknown, path: string): JsonValue {
  return checkJsonValue(value, path, MESSAGE_INVALID);
}

/**
 * AI SDK provider options: an object keyed by provider whose values are
 * objects of JSON; undefined stays absent.
 */
export function readProviderOptions(value: unknown, path: string): { [provider: string]: { [key: string]: JsonValue } } | undefined {
  if (value === undefined) return undefined;
  const options = readRecord(value, path, 'an object keyed by provider');
  for (const [provider, entry] of Object.entries(options)) {
    if (entry !== undefined && !isRecord(entry)) throw unexpected(`${path}.${provider}`, 'an object of provider options', entry);
  }
  return readJson(options, path) as { [provider: string]: { [key: string]: JsonValue } };
}

/** Arguments arrive as JSON text; text that is not JSON is kept as a string. Too deep JSON is an error. */
export function readToolArguments(text: string, path: string): JsonValue {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  return readJson(parsed, path);
}

/** A media part checked as the canonical history requires it. */
export function checkedMedia(part: MediaPart, path: string): MediaPart {
  checkMediaPart(part, path, MESSAGE_INVALID);
  return part;
}
