import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { ConfigurationError } from '@strata/context';
import { loadPostgresDriver, postgresDriver, type PostgresPool } from './postgres-driver.js';

test('without pg installed, a PostgreSQL store is a ConfigurationError naming the package to install', () => {
  const missing = () => {
    throw Object.assign(new Error("Cannot find module 'pg'"), { code: 'MODULE_NOT_FOUND' });
  };
  assert.throws(
    () => loadPostgresDriver(missing),
    (error: unknown) => ConfigurationError.isInstance(error) && /"pg"/.test(error.message) && /npm install pg/.test(error.message),
  );
});

test('any other failure while loading pg is passed on as it is', () => {
  const broken = new TypeError('pg failed to initialise');
  assert.throws(() => loadPostgresDriver(() => { throw broken; }), (error: unknown) => error === broken);
});

test('the installed pg is loaded once, and a real pg.Pool fits where a pool is passed in', async () => {
  assert.equal(postgresDriver(), postgresDriver());
  assert.equal(postgresDriver().escapeIdentifier('a"b'), pg.escapeIdentifier('a"b'));
  const pool: PostgresPool = new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none' });
  await pool.end();
});
