import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The variable the PostgreSQL suites read; `.ci/run` sets it. */
export const POSTGRES_TEST_URL_VARIABLE = 'STRATA_TEST_POSTGRES_URL';

/**
 * A fresh schema per test file, so reruns and parallel files never collide.
 * `skip` carries the notice when no server is configured.
 */
export function postgresTestTarget(): { url: string; schema: string; skip?: undefined } | { url?: undefined; schema?: undefined; skip: string } {
  const url = process.env[POSTGRES_TEST_URL_VARIABLE];
  if (url === undefined || url === '') {
    return { skip: `${POSTGRES_TEST_URL_VARIABLE} is not set (e.g. postgres://strata:strata@127.0.0.1:5432/strata_test); .ci/run sets it` };
  }
  return { url, schema: `strata_test_${randomBytes(6).toString('hex')}` };
}

/** Drops `schema` and all it holds (a test file's last step). */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${client.escapeIdentifier(schema)} CASCADE`);
  } finally {
    await client.end();
  }
}
