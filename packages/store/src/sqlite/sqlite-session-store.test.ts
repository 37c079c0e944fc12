import { join } from 'node:path';
import { sessionStoreContract } from '../testing/session-store-contract.js';
import { openSqliteSessionStore } from './sqlite-session-store.js';
import { temporaryDirectory } from '../testing/temporary-directory.js';

const path = join(temporaryDirectory('strata-sqlite-sessions-'), 'strata.db');
sessionStoreContract({
  name: 'SQLite SessionStore',
  open: () => openSqliteSessionStore({ path }),
  childOpen: `store.openSqliteSessionStore({ path: ${JSON.stringify(path)} })`,
});
