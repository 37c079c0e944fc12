// The catalog a `strata worker` runs and `strata serve` accepts: a module's, or one profile over STRATA_MODEL.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { resolveModelSettings } from '@strata/agent';
import { createModelClientFromSpecifier } from '@strata/model';
import type { ServiceCatalog } from '@strata/service';
import { CliInputError } from '../cli-input-error.js';
import type { CliIo } from '../cli-io.js';

/**
 * `--catalog FILE` names an ES module whose `catalog` (or default) export is
 * a `ServiceCatalog`. Without it: one profile, `default`, with no tools, and
 * one model, STRATA_MODEL.
 */
export async function loadServiceCatalog(file: string | undefined, io: CliIo): Promise<ServiceCatalog> {
  if (file !== undefined) {
    const module = (await import(pathToFileURL(resolve(io.cwd, file)).href)) as { catalog?: ServiceCatalog; default?: ServiceCatalog };
    const catalog = module.catalog ?? module.default;
    if (!catalog || typeof catalog.model !== 'function' || typeof catalog.profiles !== 'object') {
      throw new CliInputError({ culprit: '--catalog', message: `--catalog ${file} exports no ServiceCatalog (export const catalog = { profiles, models, model, configuration })` });
    }
    return catalog;
  }
  const specifier = io.env.STRATA_MODEL?.trim();
  if (!specifier) throw new CliInputError({ culprit: 'STRATA_MODEL', message: 'the run service needs --catalog FILE or STRATA_MODEL (e.g. openai:gpt-4.1)' });
  // Made once here, so a missing key or an unknown provider stops the command now, not each run.
  const model = createModelClientFromSpecifier({ model: specifier, env: io.env });
  // Counted and sized as `strata run` counts and sizes it: the family's estimate, an exact counter where one is
  // configured, the window the server says; what resolving noticed goes to stderr once.
  const settings = await resolveModelSettings({ env: io.env, model, specifier, cwd: io.cwd });
  for (const diagnostic of settings.diagnostics) io.stderr.write(`[context] ${diagnostic.code}: ${diagnostic.message}\n`);
  const counting = { estimator: settings.estimator, ...(settings.exactEstimator ? { exactEstimator: settings.exactEstimator } : {}) };
  return {
    profiles: { default: { profile: { id: 'default' } } },
    models: [specifier],
    model: () => model,
    configuration: settings.configuration,
    counting: () => counting,
  };
}

/** Resolves when the command should stop: Ctrl-C (the CLI's signal) or SIGTERM from a process manager. */
export function stopRequested(io: CliIo): Promise<void> {
  return new Promise((resolveStop) => {
    if (io.signal?.aborted) return resolveStop();
    io.signal?.addEventListener('abort', () => resolveStop(), { once: true });
    process.once('SIGTERM', () => resolveStop());
  });
}
