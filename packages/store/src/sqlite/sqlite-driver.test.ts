import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { ConfigurationError } from '@strata/context';
import { loadSqliteDriver, sqliteDriver, type SqliteDatabase, type SqliteDriver } from './sqlite-driver.js';

test('without better-sqlite3 installed, a SQLite store is a ConfigurationError naming the package to install', () => {
  const missing = () => {
    throw Object.assign(new Error("Cannot find module 'better-sqlite3'"), { code: 'MODULE_NOT_FOUND' });
  };
  assert.throws(
    () => loadSqliteDriver(missing),
    (error: unknown) => ConfigurationError.isInstance(error) && /"better-sqlite3"/.test(error.message) && /npm install better-sqlite3/.test(error.message),
  );
});

test('any other failure while loading better-sqlite3 is passed on as it is', () => {
  const broken = new TypeError('better-sqlite3 failed to initialise');
  assert.throws(() => loadSqliteDriver(() => { throw broken; }), (error: unknown) => error === broken);
});

test('the installed better-sqlite3 is loaded once, and its Database does what SqliteDatabase declares', () => {
  assert.equal(sqliteDriver(), sqliteDriver());
  assert.equal(sqliteDriver(), Database as unknown as SqliteDriver);
  const Driver = sqliteDriver();
  const database: SqliteDatabase = new Driver(':memory:', { fileMustExist: false, timeout: 1_000 });
  database.exec('CREATE TABLE t (n INTEGER)');
  database.transaction((n: number) => database.prepare<[number]>('INSERT INTO t (n) VALUES (?)').run(n)).immediate(41);
  assert.equal(database.prepare<[number], number>('SELECT n + ? FROM t').pluck().get(1), 42);
  assert.equal(database.pragma('user_version', { simple: true }), 0);
  database.close();
});
