import { ContextInputError, describeKind } from './errors/context-input-error.js';
import type { CanonicalHistory, JsonValue } from './messages.js';

/** Deepest nesting of a JSON value (tool arguments, provider metadata) Strata accepts. */
export const MAX_JSON_DEPTH = 512;
/** Most nodes (values, array items, object entries) in one JSON value; bounds the work of a shared or cyclic graph. */
export const MAX_JSON_NODES = 1_000_000;

const CODE = 'CONTEXT_HISTORY_INVALID';

interface Frame {
  readonly value: unknown;
  readonly depth: number;
  readonly parent: Frame | undefined;
  readonly key: string | number | undefined;
}

/** `.a[2].b`: where inside the checked value a frame sits. */
function innerPath(frame: Frame): string {
  let path = '';
  for (let current: Frame | undefined = frame; current?.parent; current = current.parent) {
    path = (typeof current.key === 'number' ? `[${current.key}]` : `.${current.key}`) + path;
  }
  return path;
}

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Checks that `value` is JSON: null, booleans, finite numbers, strings,
 * arrays and plain objects, at most `MAX_JSON_DEPTH` levels deep and
 * `MAX_JSON_NODES` nodes large (a cycle hits one of the two). An object
 * property whose value is `undefined` is allowed and means absent, as in
 * `JSON.stringify`. Iterative, so no input overflows the stack. Throws a
 * `ContextInputError` whose culprit is `path`.
 */
export function checkJsonValue(value: unknown, path: string, code: string = CODE): JsonValue {
  const fail = (frame: Frame, expected: string, actual: unknown) => {
    const inner = innerPath(frame);
    return new ContextInputError({ code, culprit: path, message: `${path}: expected ${expected}, got ${actual}${inner === '' ? '' : ` at ${inner}`}` });
  };
  const stack: Frame[] = [{ value, depth: 0, parent: undefined, key: undefined }];
  let nodes = 0;
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const current = frame.value;
    nodes += 1;
    if (nodes > MAX_JSON_NODES) throw new ContextInputError({ code: 'CONTEXT_JSON_TOO_LARGE', culprit: path, message: `${path}: expected JSON of at most ${MAX_JSON_NODES} nodes` });
    if (current === null || typeof current === 'string' || typeof current === 'boolean') continue;
    if (typeof current === 'number') {
      if (!Number.isFinite(current)) throw fail(frame, 'JSON (finite numbers)', String(current));
      continue;
    }
    if (typeof current !== 'object') throw fail(frame, 'JSON', describeKind(current));
    if (frame.depth >= MAX_JSON_DEPTH) {
      throw new ContextInputError({ code: 'CONTEXT_JSON_TOO_DEEP', culprit: path, message: `${path}: expected JSON nested at most ${MAX_JSON_DEPTH} levels deep (or it is cyclic)` });
    }
    const depth = frame.depth + 1;
    if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index -= 1) {
        if (current[index] === undefined) throw fail({ value: undefined, depth, parent: frame, key: index }, 'JSON', 'undefined');
        stack.push({ value: current[index], depth, parent: frame, key: index });
      }
      continue;
    }
    if (!isPlainObject(current)) throw fail(frame, 'JSON', `an instance of ${current.constructor?.name ?? 'a class'}`);
    for (const key of Object.keys(current)) {
      const item = (current as Record<string, unknown>)[key];
      if (item !== undefined) stack.push({ value: item, depth, parent: frame, key });
    }
  }
  return value as JsonValue;
}

/** Every check below reads a field of a record that is known to be an object. */
type Fields = Record<string, unknown>;

function expected(path: string, what: string, actual: unknown): ContextInputError {
  return ContextInputError.unexpected({ code: CODE, path, expected: what, actual });
}

function isRecord(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkString(fields: Fields, key: string, path: string, options: { optional?: boolean; nonEmpty?: boolean } = {}): void {
  const value = fields[key];
  if (value === undefined && options.optional) return;
  if (typeof value !== 'string') throw expected(`${path}.${key}`, options.nonEmpty ? 'a non-empty string' : 'a string', value);
  if (options.nonEmpty && value === '') throw new ContextInputError({ code: CODE, culprit: `${path}.${key}`, message: `${path}.${key}: expected a non-empty string, got ""` });
}

function checkOptionalBoolean(fields: Fields, key: string, path: string): void {
  const value = fields[key];
  if (value !== undefined && typeof value !== 'boolean') throw expected(`${path}.${key}`, 'a boolean', value);
}

function checkProviderMetadata(fields: Fields, path: string): void {
  const value = fields.providerMetadata;
  if (value === undefined) return;
  if (!isRecord(value)) throw expected(`${path}.providerMetadata`, 'an object keyed by provider', value);
  checkJsonValue(value, `${path}.providerMetadata`);
}

/** Checks one media part: a known type, a media type, exactly one of `data` and `url`. */
export function checkMediaPart(value: unknown, path: string, code: string = CODE): void {
  if (!isRecord(value)) throw ContextInputError.unexpected({ code, path, expected: 'a media part object', actual: value });
  if (value.type !== 'image' && value.type !== 'file') throw ContextInputError.unexpected({ code, path: `${path}.type`, expected: '"image" or "file"', actual: value.type });
  if (typeof value.mediaType !== 'string' || value.mediaType === '') throw ContextInputError.unexpected({ code, path: `${path}.mediaType`, expected: 'a non-empty string', actual: value.mediaType });
  const hasData = typeof value.data === 'string';
  const hasUrl = typeof value.url === 'string';
  if (value.data !== undefined && !hasData) throw ContextInputError.unexpected({ code, path: `${path}.data`, expected: 'a base64 string', actual: value.data });
  if (value.url !== undefined && !hasUrl) throw ContextInputError.unexpected({ code, path: `${path}.url`, expected: 'a string', actual: value.url });
  if (hasData === hasUrl) throw new ContextInputError({ code, culprit: path, message: `${path}: expected exactly one of data and url` });
  if (value.filename !== undefined && typeof value.filename !== 'string') throw ContextInputError.unexpected({ code, path: `${path}.filename`, expected: 'a string', actual: value.filename });
}

function checkMedia(fields: Fields, path: string): void {
  const media = fields.media;
  if (media === undefined) return;
  if (!Array.isArray(media)) throw expected(`${path}.media`, 'an array of media parts', media);
  media.forEach((part, index) => checkMediaPart(part, `${path}.media[${index}]`));
}

function checkAssistant(fields: Fields, path: string): void {
  checkString(fields, 'content', path);
  checkProviderMetadata(fields, path);
  const { reasoning, toolCalls } = fields;
  if (reasoning !== undefined) {
    if (!Array.isArray(reasoning)) throw expected(`${path}.reasoning`, 'an array of reasoning parts', reasoning);
    reasoning.forEach((part, index) => {
      const partPath = `${path}.reasoning[${index}]`;
      if (!isRecord(part)) throw expected(partPath, 'a reasoning part object', part);
      checkString(part, 'text', partPath);
      checkProviderMetadata(part, partPath);
    });
  }
  if (toolCalls === undefined) return;
  if (!Array.isArray(toolCalls)) throw expected(`${path}.toolCalls`, 'an array of tool calls', toolCalls);
  toolCalls.forEach((call, index) => {
    const callPath = `${path}.toolCalls[${index}]`;
    if (!isRecord(call)) throw expected(callPath, 'a tool call object', call);
    // Empty or repeated ids are allowed: the composer replaces them in the outgoing copy (pairToolCalls).
    checkString(call, 'id', callPath);
    checkString(call, 'name', callPath, { nonEmpty: true });
    if (call.input === undefined) throw expected(`${callPath}.input`, 'JSON', undefined);
    checkJsonValue(call.input, `${callPath}.input`);
    checkProviderMetadata(call, callPath);
  });
}

function checkOutputRef(fields: Fields, path: string): void {
  const ref = fields.outputRef;
  if (ref === undefined) return;
  const refPath = `${path}.outputRef`;
  if (!isRecord(ref)) throw expected(refPath, 'an output reference object', ref);
  checkString(ref, 'id', refPath, { nonEmpty: true });
  for (const key of ['chars', 'lines', 'bytes']) {
    const count = ref[key];
    if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) throw expected(`${refPath}.${key}`, 'a non-negative integer', count);
  }
}

/** Messages already checked; they are immutable by contract, so a check holds for the object's life. */
const checked = new WeakSet<object>();

/**
 * Checks one message at `path` (`history[3]`); see `checkCanonicalHistory`.
 * `remember: false` for a caller that keeps track of what it checked itself
 * (the assembler, by position): the message is not added to the shared set.
 */
export function checkCanonicalMessage(message: unknown, path: string, options?: { readonly remember?: boolean }): void {
  if (!isRecord(message)) throw expected(path, 'a message object', message);
  if (checked.has(message)) return;
  switch (message.role) {
    case 'system':
      checkString(message, 'content', path);
      break;
    case 'user':
      checkString(message, 'content', path);
      checkOptionalBoolean(message, 'hidden', path);
      checkOptionalBoolean(message, 'checkpoint', path);
      if (message.authority !== undefined && message.authority !== 'data_only') throw expected(`${path}.authority`, '"data_only" or nothing', message.authority);
      checkMedia(message, path);
      break;
    case 'assistant':
      checkAssistant(message, path);
      break;
    case 'tool':
      checkString(message, 'toolCallId', path);
      checkString(message, 'toolName', path);
      checkString(message, 'content', path);
      checkOptionalBoolean(message, 'isError', path);
      checkOptionalBoolean(message, 'masked', path);
      checkOutputRef(message, path);
      checkMedia(message, path);
      break;
    default:
      throw expected(`${path}.role`, '"system", "user", "assistant" or "tool"', message.role);
  }
  if (options?.remember !== false) checked.add(message);
}

/**
 * Checks that `value` is a canonical history: an array of messages whose
 * roles, fields and field types are the ones `messages.ts` declares, tool
 * names non-empty, JSON values within `MAX_JSON_DEPTH`. Unknown extra fields are ignored. Throws one
 * `ContextInputError` naming `history[i].field`; returns `value` itself (no
 * copy). Linear in the size of the messages not seen before: a message that
 * passed once is remembered (by identity) and not walked again.
 *
 * It does not check what the composer repairs for providers: order (results
 * right after their calls, a user turn first), empty or repeated call ids,
 * arguments that are not an object.
 */
export function checkCanonicalHistory(value: unknown): CanonicalHistory {
  if (!Array.isArray(value)) throw expected('history', 'an array of messages', value);
  for (let index = 0; index < value.length; index += 1) checkCanonicalMessage(value[index], `history[${index}]`);
  return value as CanonicalHistory;
}
