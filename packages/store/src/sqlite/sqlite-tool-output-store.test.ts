import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toolOutputStoreContract } from '../testing/tool-output-store-contract.js';
import { openSqliteToolOutputStore } from './sqlite-tool-output-store.js';

const path = join(mkdtempSync(join(tmpdir(), 'strata-sqlite-outputs-')), 'strata.db');
toolOutputStoreContract({
  name: 'SQLite ToolOutputStore',
  open: () => openSqliteToolOutputStore({ path }),
  childOpen: `store.openSqliteToolOutputStore({ path: ${JSON.stringify(path)} })`,
});
