import type { CanonicalHistory, CanonicalMessage, SessionAppendOptions, SessionStore, SessionVersion, SessionWriteOptions } from '@strata/context';
import { StoreAccessError } from '../errors/store-access-error.js';
import { decodeMessages, decodeState, requireContextId, requireVersion, sessionVersion, type SessionCompaction } from '../session-codec.js';
import { appendWrite, nextSessionVersion, replaceWrite, type SessionWrite } from '../session-rows.js';
import { MEMORY_LOCATION } from './memory-tool-output-store.js';

interface StoredVersion {
  /** First version of the chain this version's history is built from (its own number for a replace). */
  readonly segmentStart: number;
  /** Messages this version added, as JSON texts; loads return fresh copies. */
  readonly ownMessages: readonly string[];
  readonly compaction: SessionCompaction | undefined;
  readonly createdAt: string;
  /** The session state as JSON text (null: none ever given); loads return fresh copies. */
  readonly state: string | null;
}

/** Keeps histories in this process only; same semantics as the persistent stores. */
export function createMemorySessionStore(): SessionStore {
  const contexts = new Map<string, StoredVersion[]>();
  let closed = false;
  const ensureOpen = (operation: string): void => {
    if (closed) throw new StoreAccessError({ code: 'STORE_CLOSED', location: MEMORY_LOCATION, message: `${operation}: the memory session store is closed` });
  };

  const build = (contextId: string, version: number): SessionVersion | undefined => {
    const versions = contexts.get(contextId) ?? [];
    const stored = versions[version - 1];
    if (stored === undefined) return undefined;
    const texts = versions.slice(stored.segmentStart - 1, version).flatMap((entry) => entry.ownMessages);
    const where = { location: MEMORY_LOCATION, contextId, version };
    return sessionVersion({ contextId, version, messages: decodeMessages(texts, where), compaction: stored.compaction, createdAt: stored.createdAt, state: decodeState(stored.state, where) });
  };

  const add = (write: SessionWrite): SessionVersion => {
    const versions = contexts.get(write.contextId) ?? [];
    const { version, segmentStart } = nextSessionVersion({ write, newest: versions.length, previousStart: versions.at(-1)?.segmentStart });
    versions.push({ segmentStart, ownMessages: write.texts, compaction: write.compaction, createdAt: new Date().toISOString(), state: write.state ?? versions.at(-1)?.state ?? null });
    contexts.set(write.contextId, versions);
    return build(write.contextId, version)!;
  };

  return {
    async append(contextId: string, messages: readonly CanonicalMessage[], options?: SessionAppendOptions): Promise<SessionVersion> {
      ensureOpen('append');
      return add(appendWrite(contextId, messages, options));
    },
    async replace(contextId: string, messages: CanonicalHistory, compaction: SessionCompaction, options?: SessionWriteOptions): Promise<SessionVersion> {
      ensureOpen('replace');
      return add(replaceWrite(contextId, messages, compaction, options));
    },
    async load(contextId: string): Promise<SessionVersion | undefined> {
      ensureOpen('load');
      requireContextId(contextId, 'load');
      const newest = contexts.get(contextId)?.length ?? 0;
      return newest === 0 ? undefined : build(contextId, newest);
    },
    async versions(contextId: string): Promise<readonly number[]> {
      ensureOpen('versions');
      requireContextId(contextId, 'versions');
      return Array.from({ length: contexts.get(contextId)?.length ?? 0 }, (_, index) => index + 1);
    },
    async loadVersion(contextId: string, version: number): Promise<SessionVersion | undefined> {
      ensureOpen('loadVersion');
      requireContextId(contextId, 'loadVersion');
      return build(contextId, requireVersion(version, 'loadVersion'));
    },
    async close(): Promise<void> {
      closed = true;
    },
  };
}
