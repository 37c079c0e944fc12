import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as workspacePackage from './index.js';

test('the package exports its public API by name, and no internals', () => {
  assert.deepEqual(Object.keys(workspacePackage).sort(), [
    'BUILT_IN_DOMAINS',
    'ContextWorkspace',
    'ContextWorkspaceInputError',
    'contextBlock',
    'workspaceContributorFactory',
  ]);
});
