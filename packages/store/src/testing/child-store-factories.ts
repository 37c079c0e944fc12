// What a store test's child process may open (`store.<name>` in `childOpen`):
// each backend's stores one by one, beside the package's public bundles.
export { openSqliteStores } from '../open-stores.js';
export { openSqliteSessionStore } from '../sqlite/sqlite-session-store.js';
export { openSqliteToolOutputStore } from '../sqlite/sqlite-tool-output-store.js';
export { createPostgresSessionStore } from '../postgres/postgres-session-store.js';
export { createPostgresToolOutputStore } from '../postgres/postgres-tool-output-store.js';
