// strata migrate: creates the run service's tables, with a role that may.
import { parseCommandArguments } from '../cli-arguments.js';
import type { CliIo } from '../cli-io.js';

/** The options `strata migrate` parses; its help (COMMAND_HELP.migrate) documents each. */
export const MIGRATE_OPTIONS = Object.freeze({ 'application-role': { type: 'string' } } as const);

export async function migrateCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArguments('strata migrate', args, MIGRATE_OPTIONS);
  const { migrateService, serviceDatabaseFromEnvironment } = await import('@strata/service');
  const database = serviceDatabaseFromEnvironment(io.env);
  await migrateService({ database, applicationRole: values['application-role'] });
  io.stdout.write(`strata migrate: the run service tables are ready (DBOS schema ${database.systemSchema}, stores ${database.storeSchema}, service ${database.serviceSchema})\n`);
  return 0;
}
