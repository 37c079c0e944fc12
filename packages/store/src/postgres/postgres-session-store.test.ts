import { after } from 'node:test';
import { sessionStoreContract } from '../testing/session-store-contract.js';
import { createPostgresSessionStore } from './postgres-session-store.js';
import { dropSchema, postgresTestTarget } from './postgres-test-database.js';

const target = postgresTestTarget();
const { url, schema } = target;

sessionStoreContract({
  name: 'PostgreSQL SessionStore',
  ...(url === undefined ? { skip: target.skip } : {}),
  open: () => createPostgresSessionStore({ connectionString: url!, schema: schema! }),
  childOpen: `store.createPostgresSessionStore({ connectionString: ${JSON.stringify(url)}, schema: ${JSON.stringify(schema)} })`,
});

if (url !== undefined) after(() => dropSchema(url, schema));
