import type { ContextState } from './context-state.js';
import type { CanonicalHistory, CanonicalMessage, JsonValue, ToolOutputRef } from './messages.js';

/** The body of a stored tool result, byte-exact. */
export interface StoredToolOutput {
  readonly ref: ToolOutputRef;
  readonly contextId: string;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly body: string;
  readonly createdAt: string;
}

export interface PutToolOutput {
  readonly contextId: string;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly body: string;
}

/** A body given as it streams: its chunks in order (a web `ReadableStream<string>` is one). */
export interface PutToolOutputStream extends Omit<PutToolOutput, 'body'> {
  readonly body: AsyncIterable<string>;
  /** Stops reading the chunks: nothing is stored and the put rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** One stored output of a context, without its body (see `ToolOutputStore.list`). */
export interface StoredToolOutputEntry {
  readonly refId: string;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly createdAt: string;
}

/**
 * Keeps every stored tool result under a stable reference. Implemented in
 * `@strata/store` (memory, SQLite, PostgreSQL).
 */
export interface ToolOutputStore {
  put(output: PutToolOutput): Promise<ToolOutputRef>;
  /**
   * Stores a body as it streams: chunks are hashed (SHA-256) as they arrive
   * and written in bounded pieces, so memory is bounded by a piece, not by
   * the body. The output is visible to `get` only once whole. Optional so
   * that wrappers and stubs keep working: without it the runtime gathers
   * the chunks and calls `put`.
   */
  putStream?(output: PutToolOutputStream): Promise<ToolOutputRef>;
  /** Undefined when no output has that reference. */
  get(refId: string): Promise<StoredToolOutput | undefined>;
  /**
   * The outputs stored for a context, oldest first, without their bodies:
   * what `read_tool_output` searches when the model gives a query and no
   * reference, so a result the window dropped is still one query away.
   * Optional so that wrappers and stubs keep working; without it a query
   * needs a reference.
   */
  list?(contextId: string): Promise<readonly StoredToolOutputEntry[]>;
  close(): Promise<void>;
}

/**
 * What a session keeps beside its history, in the same version, so any
 * process (a resumed run, another worker, an adapter after a restart)
 * continues it as the last one would.
 */
export interface SessionState {
  /** The assembler's context state after the last assembled turn (`AssembledTurn.state`). */
  readonly context?: ContextState;
  /** The state of the run that drives the context (the agent's lanes), as JSON. */
  readonly run?: JsonValue;
}

/** One persisted version of a context's canonical history. */
export interface SessionVersion {
  readonly contextId: string;
  readonly version: number;
  readonly messages: CanonicalHistory;
  /** Set when this version came from compaction: what it replaced and why. */
  readonly compaction?: {
    readonly reason: string;
    readonly replacedFromVersion: number;
    readonly replacedMessages: number;
  };
  readonly createdAt: string;
  /** The session's state as of this version; absent for a session never given one. */
  readonly state?: SessionState;
}

export interface SessionWriteOptions {
  /** The session's state as of the new version. Default: the newest version's, carried over unchanged. */
  readonly state?: SessionState;
}

export interface SessionAppendOptions extends SessionWriteOptions {
  /**
   * Append only while this is still the newest version (0 for a context never
   * written); otherwise the store refuses with a conflict and writes nothing.
   * A writer that must not interleave with others (an agent's step) sets it.
   */
  readonly expectedVersion?: number;
}

/**
 * The canonical history of each context: append-only; every compaction is a
 * new version that records what it replaced.
 */
export interface SessionStore {
  /** Appends messages (none: a version that only records a new state). */
  append(contextId: string, messages: readonly CanonicalMessage[], options?: SessionAppendOptions): Promise<SessionVersion>;
  /**
   * Records a compacted history as a new version. `compaction.replacedFromVersion`
   * must be the newest version (0 for a context never written); otherwise the
   * store refuses, since replacing an older version would drop what was appended since.
   */
  replace(contextId: string, messages: CanonicalHistory, compaction: NonNullable<SessionVersion['compaction']>, options?: SessionWriteOptions): Promise<SessionVersion>;
  /** The newest version, or undefined for a context never written. */
  load(contextId: string): Promise<SessionVersion | undefined>;
  versions(contextId: string): Promise<readonly number[]>;
  loadVersion(contextId: string, version: number): Promise<SessionVersion | undefined>;
  close(): Promise<void>;
}

export interface SummarizeRequest {
  /** The complete, already bounded source transcript. */
  readonly transcript: CanonicalHistory;
  readonly instructions: string;
  readonly signal: AbortSignal;
}

/** Writes a checkpoint of a transcript. Implemented over the model client. */
export interface Summarizer {
  summarize(request: SummarizeRequest): Promise<string>;
}

/** Receives one trace document per model turn (and per recovery attempt). */
export interface TraceSink {
  write(document: { readonly contextId: string; readonly turn: number; readonly recoveryAttempt?: number; readonly body: unknown }): Promise<void>;
  /** The highest turn written for a context (0 when none), so a resumed run numbers its turns on from it. */
  lastTurn?(contextId: string): Promise<number>;
}
