import { createHash } from 'node:crypto';
import { StoreInputError } from '../errors/store-input-error.js';
import { isWellFormedText } from '../well-formed-text.js';

/** Longest encoded context id kept whole; longer ones keep a prefix and a hash (file names stop at 255 bytes). */
export const MAX_CONTEXT_DIRECTORY_CHARS = 200;

const SAFE = /[A-Za-z0-9_.-]/;

/**
 * A directory name for a context id, the same for the same id and different
 * for different ids. Letters, digits, `_`, `-` and `.` stay; every other
 * character is percent-encoded as UTF-8 (so `/`, `\`, `%` and NUL never
 * reach the file system), and a leading `.` is encoded so `.`, `..` and
 * hidden names cannot occur. An encoding longer than 200 characters becomes
 * its first 150 characters, `~` and 32 hex digits of its SHA-256 (`~` is
 * always encoded otherwise). Ids differing only in letter case collide on
 * case-insensitive file systems.
 */
export function contextDirectoryName(contextId: string): string {
  if (typeof contextId !== 'string' || contextId.length === 0) {
    throw new StoreInputError({ code: 'TRACE_CONTEXT_ID_INVALID', culprit: 'contextId', message: 'trace: contextId must be a non-empty string' });
  }
  if (!isWellFormedText(contextId)) {
    throw new StoreInputError({
      code: 'TRACE_CONTEXT_ID_INVALID',
      culprit: 'contextId',
      message: `trace: contextId ${JSON.stringify(contextId)} holds a lone surrogate and has no file-system name`,
    });
  }
  let encoded = '';
  for (const character of contextId) {
    if (SAFE.test(character) && !(character === '.' && encoded === '')) {
      encoded += character;
    } else {
      for (const byte of Buffer.from(character, 'utf8')) encoded += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    }
  }
  if (encoded.length <= MAX_CONTEXT_DIRECTORY_CHARS) return encoded;
  const digest = createHash('sha256').update(encoded).digest('hex').slice(0, 32);
  return `${encoded.slice(0, 150)}~${digest}`;
}

/**
 * `turn-0001.json`, or `turn-0001-recovery-1.json` for a recovery attempt.
 * Turns are 1-based, zero-padded to four digits (wider numbers keep all
 * their digits).
 */
export function traceFileName(options: { readonly turn: number; readonly recoveryAttempt?: number }): string {
  const { turn, recoveryAttempt } = options;
  if (!Number.isSafeInteger(turn) || turn < 1) {
    throw new StoreInputError({ code: 'TRACE_TURN_INVALID', culprit: 'turn', message: `trace: turn must be a positive integer, got ${String(turn)}` });
  }
  if (recoveryAttempt !== undefined && (!Number.isSafeInteger(recoveryAttempt) || recoveryAttempt < 1)) {
    throw new StoreInputError({
      code: 'TRACE_TURN_INVALID',
      culprit: 'recoveryAttempt',
      message: `trace: recoveryAttempt must be a positive integer, got ${String(recoveryAttempt)}`,
    });
  }
  const base = `turn-${String(turn).padStart(4, '0')}`;
  return recoveryAttempt === undefined ? `${base}.json` : `${base}-recovery-${recoveryAttempt}.json`;
}
