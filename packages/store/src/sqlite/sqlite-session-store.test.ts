import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sessionStoreContract } from '../testing/session-store-contract.js';
import { openSqliteSessionStore } from './sqlite-session-store.js';

const path = join(mkdtempSync(join(tmpdir(), 'strata-sqlite-sessions-')), 'strata.db');
sessionStoreContract({
  name: 'SQLite SessionStore',
  open: () => openSqliteSessionStore({ path }),
  childOpen: `store.openSqliteSessionStore({ path: ${JSON.stringify(path)} })`,
});
