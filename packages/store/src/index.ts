// Errors
export { StoreAccessError, type StoreAccessErrorCode } from './errors/store-access-error.js';
export { StoreInputError } from './errors/store-input-error.js';
export { SessionConflictError } from './errors/session-conflict-error.js';

// Opening stores
export { createMemoryStores, createPostgresStores, openDefaultStores, openSqliteStores, openStores, type OpenStoresOptions, type Stores } from './open-stores.js';
export type { SqliteStoreOptions } from './sqlite/sqlite-database.js';
export { POSTGRES_RETRY_DEFAULTS, type PostgresRetryOptions, type PostgresStoreOptions } from './postgres/postgres-connection.js';
export { createMemoryToolOutputStore, type MemoryToolOutputStoreOptions } from './memory/memory-tool-output-store.js';
export { createMemorySessionStore } from './memory/memory-session-store.js';

// Tool-output bodies
export { countLines, derivedToolOutputId, measureToolOutput, toolOutputIdSequence, type ToolOutputIdMaker } from './tool-output-body.js';

// The blackboard over SQLite and PostgreSQL
export { openSqliteBlackboardStore, type SqliteBlackboardStoreOptions } from './blackboard/sqlite-blackboard-store.js';
export { openPostgresBlackboardStore, type PostgresBlackboardStoreOptions } from './blackboard/postgres-blackboard-store.js';

// Trace files
export { contextDirectoryName } from './trace/context-id-path.js';
export { createFileTraceSink, defaultTraceDirectory, type FileTraceSinkOptions } from './trace/file-trace-sink.js';
