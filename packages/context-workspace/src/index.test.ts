import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as workspacePackage from './index.js';

test('the package exports its public API by name, and no internals', () => {
  assert.deepEqual(Object.keys(workspacePackage).sort(), [
    'ABSTRACT_TO_COMPACT_THRESHOLD',
    'BLOCKS_DROPPED_CODE',
    'BLOCK_DEGRADED_CODE',
    'BLOCK_SEPARATOR',
    'BUILT_IN_DOMAINS',
    'COMPACT_TO_FULL_THRESHOLD',
    'CONTEXT_WORKSPACE_SNAPSHOT_FORMAT',
    'CONTEXT_WORKSPACE_TRACE_EVENT',
    'ContextWorkspace',
    'ContextWorkspaceInputError',
    'DEFAULT_URGENCY',
    'INITIAL_ACTIVATION_SCORE',
    'MAX_ACTIVATION_SCORE',
    'PROJECTION_EPSILON',
    'URGENCIES',
    'WORKSPACE_ATTACHMENT_SOURCE',
    'activate',
    'applyReplaceFade',
    'applyTimeFade',
    'contextBlock',
    'escapeXmlAttribute',
    'escapeXmlText',
    'highestUrgency',
    'knownDomains',
    'projectionFor',
    'projectionLevel',
    'renderAggregate',
    'renderBlockElement',
    'smallerProjection',
    'urgencyRank',
    'workspaceContributorFactory',
  ]);
});
