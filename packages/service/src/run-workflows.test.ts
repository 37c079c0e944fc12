import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigurationError, resolveContextConfiguration } from '@strata/context';
import type { ModelClient } from '@strata/model';
import { Error as DBOSErrors } from '@dbos-inc/dbos-sdk';
import { registerRunWorkflows, runEndOfError } from './run-workflows.js';
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

test('a run whose workflow lost its ownership to another executor logs no end (the run goes on there); a cancel or any other error does', () => {
  const lost = new DBOSErrors.DBOSWorkflowConflictError('run_1');
  assert.equal(runEndOfError(lost, false), undefined);
  // A cancel often surfaces as the lost ownership: the run ended cancelled.
  assert.deepEqual(runEndOfError(lost, true), { type: 'run-finished', stopReason: 'cancelled', message: lost.message });
  assert.equal(runEndOfError(new DBOSErrors.DBOSWorkflowCancelledError('run_1'), false)?.stopReason, 'cancelled');
  assert.deepEqual(runEndOfError(new Error('model refused'), false), { type: 'run-finished', stopReason: 'failed', message: 'model refused' });
  assert.deepEqual(runEndOfError('a string', false), { type: 'run-finished', stopReason: 'failed', message: 'a string' });
});
