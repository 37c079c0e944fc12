import { join } from 'node:path';
import { toolOutputStoreContract } from '../testing/tool-output-store-contract.js';
import { openSqliteToolOutputStore } from './sqlite-tool-output-store.js';
import { temporaryDirectory } from '../testing/temporary-directory.js';

const path = join(temporaryDirectory('strata-sqlite-outputs-'), 'strata.db');
toolOutputStoreContract({
  name: 'SQLite ToolOutputStore',
  open: () => openSqliteToolOutputStore({ path }),
  childOpen: `store.openSqliteToolOutputStore({ path: ${JSON.stringify(path)} })`,
});
