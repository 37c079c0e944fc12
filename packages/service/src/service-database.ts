import { ConfigurationError, withDefaults } from '@strata/context';

/** The DBOS application name every worker and the API share. */
export const SERVICE_APPLICATION_NAME = 'strata';
/**
 * The application version workers run under. Recovery resumes only the
 * workflows of the version a worker runs: every worker of a deployment must
 * run the same one. Default: this package's version.
 */
export const SERVICE_APPLICATION_VERSION = '0.1.0';

/** Where the service keeps its state: one PostgreSQL, three schemas. */
export interface ServiceDatabase {
  /** `postgres://user:password@host:port/database`. */
  readonly url: string;
  /** DBOS's workflow tables. Default `strata_dbos`. */
  readonly systemSchema?: string;
  /** The session and tool-output stores. Default `public`. */
  readonly storeSchema?: string;
  /** The service's run events and traces. Default `public`. */
  readonly serviceSchema?: string;
}

export const SERVICE_DATABASE_DEFAULTS = Object.freeze({ systemSchema: 'strata_dbos', storeSchema: 'public', serviceSchema: 'public' });

type Environment = Readonly<Record<string, string | undefined>>;

/**
 * The service's database from the environment: `STRATA_SERVICE_DATABASE_URL`,
 * else `STRATA_STORE_URL` when it is a PostgreSQL URL; schemas from
 * `STRATA_SERVICE_SYSTEM_SCHEMA`, `STRATA_SERVICE_STORE_SCHEMA`,
 * `STRATA_SERVICE_SCHEMA`.
 */
export function serviceDatabaseFromEnvironment(env: Environment): Required<ServiceDatabase> {
  const url = env.STRATA_SERVICE_DATABASE_URL?.trim() || env.STRATA_STORE_URL?.trim();
  if (!url || !/^postgres(ql)?:\/\//.test(url)) {
    throw new ConfigurationError({ setting: 'STRATA_SERVICE_DATABASE_URL', message: 'STRATA_SERVICE_DATABASE_URL (or a postgres:// STRATA_STORE_URL) must name the PostgreSQL database the run service shares' });
  }
  return resolveServiceDatabase({
    url,
    systemSchema: env.STRATA_SERVICE_SYSTEM_SCHEMA?.trim() || undefined,
    storeSchema: env.STRATA_SERVICE_STORE_SCHEMA?.trim() || undefined,
    serviceSchema: env.STRATA_SERVICE_SCHEMA?.trim() || undefined,
  });
}

export function resolveServiceDatabase(database: ServiceDatabase): Required<ServiceDatabase> {
  const { url, systemSchema, storeSchema, serviceSchema } = withDefaults(SERVICE_DATABASE_DEFAULTS, database);
  return { url, systemSchema, storeSchema, serviceSchema };
}
