// A PostgreSQL schema of its own for each test file (`STRATA_TEST_POSTGRES_URL`)
export { dropSchema, postgresTestTarget } from './postgres-test-target.js';
