import type { CanonicalMessage, SessionVersion } from '@strata/context';
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

/** Builds the port's record; `compaction` is absent (not undefined) on appends. */
export function sessionVersion(options: {
  contextId: string;
  version: number;
  messages: CanonicalMessage[];
  compaction: SessionCompaction | undefined;
  createdAt: string;
}): SessionVersion {
  const base = { contextId: options.contextId, version: options.version, messages: options.messages };
  return options.compaction === undefined
    ? { ...base, createdAt: options.createdAt }
    : { ...base, compaction: options.compaction, createdAt: options.createdAt };
}
