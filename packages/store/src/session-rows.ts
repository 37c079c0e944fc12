import type { CanonicalHistory, CanonicalMessage, SessionAppendOptions, SessionStore, SessionVersion, SessionWriteOptions } from '@strata/context';
import { SessionConflictError } from './errors/session-conflict-error.js';
import {
  decodeMessages,
  decodeState,
  encodeMessages,
  encodeState,
  requireContextId,
  sessionVersion,
  validateCompaction,
  validateExpectedVersion,
  type SessionCompaction,
} from './session-codec.js';

/**
 * A `strata_session_versions` row as both SQL backends return it: a version
 * keeps only the messages it added, and its history is the added messages of
 * versions `segment_start`..version. `created_at` is TEXT in SQLite and
 * `timestamptz` (a Date) in PostgreSQL.
 */
export interface SessionVersionRow {
  readonly segment_start: number;
  readonly compaction: string | null;
  readonly created_at: string | Date;
  /** The session state as JSON text; null for a version written before states existed, or with none ever given. */
  readonly state: string | null;
}

/** One checked write of a new version, as every backend receives it. */
export interface SessionWrite {
  readonly operation: 'append' | 'replace';
  readonly contextId: string;
  /** The messages the version adds, encoded one JSON text each. */
  readonly texts: readonly string[];
  /** Set for a replace; the version then starts a new segment. */
  readonly compaction: SessionCompaction | undefined;
  /** The newest version the write must find (a conditional append, or the version a compaction replaces); undefined: any. */
  readonly expectedVersion: number | undefined;
  /** The new version's session state as JSON text; undefined: the newest version's, carried over. */
  readonly state: string | undefined;
}

/** Writes a new version in one transaction; a SQL backend's half of the port's `append` and `replace`. */
export type AddSessionVersion = (write: SessionWrite) => Promise<SessionVersion>;

/** The checked write of an `append`. */
export function appendWrite(contextId: string, messages: readonly CanonicalMessage[], options: SessionAppendOptions | undefined): SessionWrite {
  requireContextId(contextId, 'append');
  const expectedVersion = validateExpectedVersion(options?.expectedVersion, 'append');
  return { operation: 'append', contextId, texts: encodeMessages(messages, 'append'), compaction: undefined, expectedVersion, state: encodeState(options?.state, 'append') };
}

/** The checked write of a `replace`: it expects the version its compaction replaces. */
export function replaceWrite(contextId: string, messages: CanonicalHistory, compaction: SessionCompaction, options: SessionWriteOptions | undefined): SessionWrite {
  requireContextId(contextId, 'replace');
  const checked = validateCompaction(compaction, 'replace');
  return { operation: 'replace', contextId, texts: encodeMessages(messages, 'replace'), compaction: checked, expectedVersion: checked.replacedFromVersion, state: encodeState(options?.state, 'replace') };
}

/** The port's `append` and `replace` over a backend's `add`: arguments checked and encoded here, once for every backend. */
export function sessionWrites(add: AddSessionVersion): Pick<SessionStore, 'append' | 'replace'> {
  return {
    async append(contextId: string, messages: readonly CanonicalMessage[], options?: SessionAppendOptions): Promise<SessionVersion> {
      return add(appendWrite(contextId, messages, options));
    },
    async replace(contextId: string, messages: CanonicalHistory, compaction: SessionCompaction, options?: SessionWriteOptions): Promise<SessionVersion> {
      return add(replaceWrite(contextId, messages, compaction, options));
    },
  };
}

/** Where the next version of a context goes; the same rule for every backend. */
export interface NextSessionVersion {
  readonly version: number;
  /** Its own number after a compaction (or for the first version); else the previous version's start. */
  readonly segmentStart: number;
}

/**
 * Numbers the version after `newest`, read under the backend's write lock.
 * A write that expects another newest version throws `SessionConflictError`
 * and nothing is written. `previousStart` is the newest version's
 * `segmentStart` (undefined when there is none).
 */
export function nextSessionVersion(options: { readonly write: SessionWrite; readonly newest: number; readonly previousStart: number | undefined }): NextSessionVersion {
  const { write, newest, previousStart } = options;
  if (write.expectedVersion !== undefined && write.expectedVersion !== newest) {
    throw new SessionConflictError({ contextId: write.contextId, expectedVersion: write.expectedVersion, actualVersion: newest });
  }
  const version = newest + 1;
  return { version, segmentStart: write.compaction !== undefined || previousStart === undefined ? version : previousStart };
}

/** The `compaction` column: the checked record as JSON text, null on appends. */
export function compactionColumn(compaction: SessionCompaction | undefined): string | null {
  return compaction === undefined ? null : JSON.stringify(compaction);
}

/** The port's record of `version` from its row and the texts of its history, oldest first. */
export function sessionVersionFromRow(options: {
  readonly contextId: string;
  readonly version: number;
  readonly row: SessionVersionRow;
  readonly texts: readonly string[];
  /** The store, named when a stored message is damaged. */
  readonly location: string;
}): SessionVersion {
  const { contextId, version, row } = options;
  return sessionVersion({
    contextId,
    version,
    messages: decodeMessages(options.texts, { location: options.location, contextId, version }),
    compaction: row.compaction === null ? undefined : (JSON.parse(row.compaction) as SessionCompaction),
    createdAt: typeof row.created_at === 'string' ? row.created_at : row.created_at.toISOString(),
    state: decodeState(row.state, { location: options.location, contextId, version }),
  });
}
