import { checkContextState, ContextInputError, type CanonicalMessage, type SessionState, type SessionVersion } from '@strata/context';
import { StoreAccessError } from './errors/store-access-error.js';
import { StoreInputError } from './errors/store-input-error.js';
import { requireKey } from './store-key.js';

export type SessionCompaction = NonNullable<SessionVersion['compaction']>;

const ROLES: ReadonlySet<string> = new Set(['system', 'user', 'assistant', 'tool']);

/**
 * Serializes messages one JSON text each, the form every backend keeps.
 * JSON escapes NUL and lone surrogates, so any string content round-trips;
 * what JSON cannot hold (a BigInt, a cycle) is refused naming the message.
 */
export function encodeMessages(messages: readonly CanonicalMessage[], operation: string): string[] {
  if (!Array.isArray(messages)) {
    throw new StoreInputError({ code: 'SESSION_MESSAGES_INVALID', culprit: 'messages', message: `${operation}: messages must be an array` });
  }
  return messages.map((message, index) => {
    const culprit = `messages[${index}]`;
    const role: unknown = (message as { role?: unknown } | null)?.role;
    if (typeof message !== 'object' || message === null || typeof role !== 'string' || !ROLES.has(role)) {
      throw new StoreInputError({ code: 'SESSION_MESSAGE_INVALID', culprit, message: `${operation}: ${culprit} is not a canonical message (role must be system, user, assistant or tool)` });
    }
    try {
      return JSON.stringify(message);
    } catch (cause) {
      throw new StoreInputError({ code: 'SESSION_MESSAGE_INVALID', culprit, message: `${operation}: ${culprit} (${role}) cannot be serialized as JSON`, cause });
    }
  });
}

/**
 * Parses stored messages. A text that is not a JSON canonical message means
 * the database was damaged: `STORE_CORRUPTED`, naming the store, the context
 * and the version, instead of a history with a hole in it.
 */
export function decodeMessages(texts: readonly string[], where: { location: string; contextId: string; version: number }): CanonicalMessage[] {
  return texts.map((text, index) => {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      message = undefined;
    }
    const role: unknown = (message as { role?: unknown } | null | undefined)?.role;
    if (typeof message !== 'object' || message === null || typeof role !== 'string' || !ROLES.has(role)) {
      throw new StoreAccessError({
        code: 'STORE_CORRUPTED',
        location: where.location,
        message: `session store ${where.location}: message ${index} of context "${where.contextId}" version ${where.version} is not a canonical message; the store is damaged`,
      });
    }
    return message as CanonicalMessage;
  });
}

/**
 * The session state as the JSON text every backend keeps; undefined when
 * the write gives none (the newest version's is carried over). The context
 * state is checked; the run state must be JSON.
 */
export function encodeState(state: unknown, operation: string): string | undefined {
  if (state === undefined) return undefined;
  if (typeof state !== 'object' || state === null || Array.isArray(state)) {
    throw new StoreInputError({ code: 'SESSION_STATE_INVALID', culprit: 'state', message: `${operation}: state must be an object with context and run fields` });
  }
  const { context, run } = state as Record<string, unknown>;
  let checked: SessionState;
  try {
    checked = { ...(context === undefined ? {} : { context: checkContextState(context, 'state.context') }), ...(run === undefined ? {} : { run: run as SessionState['run'] }) };
  } catch (cause) {
    if (!ContextInputError.isInstance(cause)) throw cause;
    throw new StoreInputError({ code: 'SESSION_STATE_INVALID', culprit: cause.culprit, message: `${operation}: ${cause.message}`, cause });
  }
  try {
    return JSON.stringify(checked);
  } catch (cause) {
    throw new StoreInputError({ code: 'SESSION_STATE_INVALID', culprit: 'state.run', message: `${operation}: state.run cannot be serialized as JSON`, cause });
  }
}

/** Parses a stored state; a text that is not one means the database was damaged (`STORE_CORRUPTED`). */
export function decodeState(text: string | null, where: { location: string; contextId: string; version: number }): SessionState | undefined {
  if (text === null) return undefined;
  try {
    const parsed = JSON.parse(text) as { context?: unknown; run?: SessionState['run'] };
    return { ...(parsed.context === undefined ? {} : { context: checkContextState(parsed.context) }), ...(parsed.run === undefined ? {} : { run: parsed.run }) };
  } catch {
    throw new StoreAccessError({
      code: 'STORE_CORRUPTED',
      location: where.location,
      message: `session store ${where.location}: the state of context "${where.contextId}" version ${where.version} is not a session state; the store is damaged`,
    });
  }
}

/** Keeps only the fields of the port, checked. */
export function validateCompaction(compaction: SessionCompaction, operation: string): SessionCompaction {
  if (typeof compaction !== 'object' || compaction === null) {
    throw new StoreInputError({ code: 'SESSION_COMPACTION_INVALID', culprit: 'compaction', message: `${operation}: compaction must be an object` });
  }
  const { reason, replacedFromVersion, replacedMessages } = compaction;
  if (typeof reason !== 'string' || reason.length === 0) {
    throw new StoreInputError({ code: 'SESSION_COMPACTION_INVALID', culprit: 'compaction.reason', message: `${operation}: compaction.reason must be a non-empty string` });
  }
  for (const [field, value] of [['replacedFromVersion', replacedFromVersion], ['replacedMessages', replacedMessages]] as const) {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new StoreInputError({ code: 'SESSION_COMPACTION_INVALID', culprit: `compaction.${field}`, message: `${operation}: compaction.${field} must be a non-negative integer, got ${String(value)}` });
    }
  }
  return { reason, replacedFromVersion, replacedMessages };
}

/** The version a conditional append expects, checked; undefined when the append is unconditional. */
export function validateExpectedVersion(expectedVersion: unknown, operation: string): number | undefined {
  if (expectedVersion === undefined) return undefined;
  if (!Number.isSafeInteger(expectedVersion) || (expectedVersion as number) < 0) {
    throw new StoreInputError({ code: 'SESSION_VERSION_INVALID', culprit: 'expectedVersion', message: `${operation}: expectedVersion must be a non-negative integer, got ${String(expectedVersion)}` });
  }
  return expectedVersion as number;
}

export function requireContextId(contextId: unknown, operation: string): string {
  return requireKey(contextId, { field: 'contextId', operation });
}

export function requireVersion(version: unknown, operation: string): number {
  if (!Number.isSafeInteger(version) || (version as number) < 1) {
    throw new StoreInputError({ code: 'SESSION_VERSION_INVALID', culprit: 'version', message: `${operation}: version must be a positive integer, got ${String(version)}` });
  }
  return version as number;
}

/** Builds the port's record; `compaction` is absent (not undefined) on appends, `state` when none was ever given. */
export function sessionVersion(options: {
  contextId: string;
  version: number;
  messages: CanonicalMessage[];
  compaction: SessionCompaction | undefined;
  createdAt: string;
  state?: SessionState | undefined;
}): SessionVersion {
  const base = { contextId: options.contextId, version: options.version, messages: options.messages };
  const record: SessionVersion =
    options.compaction === undefined ? { ...base, createdAt: options.createdAt } : { ...base, compaction: options.compaction, createdAt: options.createdAt };
  return options.state === undefined ? record : { ...record, state: options.state };
}
