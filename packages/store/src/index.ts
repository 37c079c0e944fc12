export * from './errors/store-access-error.js';
export * from './errors/store-input-error.js';
export * from './errors/session-conflict-error.js';
export { measureToolOutput, countLines, newToolOutputId, isToolOutputId } from './tool-output-body.js';
export * from './memory/memory-tool-output-store.js';
export * from './memory/memory-session-store.js';
export { SQLITE_DEFAULTS, type SqliteStoreOptions, type SqliteMigration } from './sqlite/sqlite-database.js';
export * from './sqlite/sqlite-tool-output-store.js';
export * from './sqlite/sqlite-session-store.js';
export {
  POSTGRES_DEFAULTS,
  createPostgresPool,
  redactConnectionString,
  type PostgresStoreOptions,
  type PostgresMigration,
} from './postgres/postgres-connection.js';
export * from './postgres/postgres-tool-output-store.js';
export * from './postgres/postgres-session-store.js';
export * from './open-stores.js';
export * from './trace/context-id-path.js';
export * from './trace/file-trace-sink.js';
export * from './blackboard/sqlite-blackboard-store.js';
