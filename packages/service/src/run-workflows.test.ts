import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigurationError, resolveContextConfiguration } from '@strata/context';
import type { ModelClient } from '@strata/model';
import { registerRunWorkflows } from './run-workflows.js';
import type { RunLog } from './run-log.js';
import type { ServiceCatalog } from './service-catalog.js';

test('a profile that delegates to a sub-agent profile the catalog lacks is refused before any workflow is registered', () => {
  const catalog: ServiceCatalog = {
    profiles: { lead: { profile: { id: 'lead' }, subagent: 'helper' } },
    models: ['none'],
    model: () => ({}) as ModelClient,
    configuration: resolveContextConfiguration({}),
  };
  assert.throws(
    () => registerRunWorkflows({ catalog, sessionStore: {} as never, outputStore: {} as never, runLog: {} as RunLog, watchCancel: () => ({ signal: new AbortController().signal, release: () => undefined }) }),
    (error: unknown) => ConfigurationError.isInstance(error) && error.setting === 'profiles.lead.subagent' && /helper/.test(error.message),
  );
});
