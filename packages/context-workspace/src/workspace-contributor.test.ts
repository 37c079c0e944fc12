import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ContextContributor, ContributionRequest, TokenEstimator } from '@strata/context';
import { contextBlock } from './context-block.js';
import { ContextWorkspace } from './context-workspace.js';
import { ContextWorkspaceInputError } from './errors/context-workspace-input-error.js';
import { workspaceContributorFactory } from './workspace-contributor.js';

function request(turn: number, signal: AbortSignal = new AbortController().signal): ContributionRequest {
  return { contextId: 'run-1', scope: 'main', turn, history: [], signal };
}

function workspaceWithBlocks(): ContextWorkspace {
  const workspace = new ContextWorkspace({ now: () => 0 });
  workspace.register(
    contextBlock({
      blockName: 'plan',
      source: 'planner',
      focusedOn: ['ACTION'],
      blockContent: 'step 1 then step 2',
      compactBlock: 'two steps',
      replaceFadeFactor: 10,
      timeFadeFactor: 0,
      activateFactor: 5,
    }),
  );
  workspace.register(
    contextBlock({
      blockName: 'recall',
      source: 'memory',
      focusedOn: ['MEMORY'],
      blockContent: 'the user prefers tea',
      replaceFadeFactor: 10,
      timeFadeFactor: 0,
      activateFactor: 5,
    }),
  );
  return workspace;
}

async function contribute(contributor: ContextContributor, turn: number) {
  return contributor.contribute(request(turn));
}

function single(created: ContextContributor | readonly ContextContributor[]): ContextContributor {
  assert.ok(!Array.isArray(created));
  return created as ContextContributor;
}

test('each turn resolves the configured domains into one data attachment', async () => {
  const workspace = workspaceWithBlocks();
  const factory = workspaceContributorFactory({ workspace, domains: ['ACTION', 'MEMORY'] });
  assert.equal(factory.id, 'context-workspace');
  const contributor = single(factory.create({ contextId: 'run-1', scope: 'main' }));
  assert.deepEqual(contributor.scopes, ['main']);
  assert.equal(contributor.required, false);
  assert.deepEqual(await contribute(contributor, 1), {
    attachments: [
      {
        id: 'context-workspace',
        source: 'context-workspace',
        trust: 'untrusted_data',
        content:
          '<plan source="planner" urgency="normal">step 1 then step 2</plan>\n' +
          '<recall source="memory" urgency="normal">the user prefers tea</recall>',
      },
    ],
    diagnostics: [],
  });
  workspace.expire('plan', 'planner');
  const next = await contribute(contributor, 2);
  assert.equal(next.attachments?.[0]?.content, '<recall source="memory" urgency="normal">the user prefers tea</recall>');
});

test('domains may be chosen per run; nothing matched contributes no attachment', async () => {
  const workspace = workspaceWithBlocks();
  const factory = workspaceContributorFactory({
    workspace,
    id: 'workspace-memory',
    trust: 'trusted_data',
    scopes: ['main', 'subagent'],
    domains: ({ scope }) => (scope === 'subagent' ? ['PERCEIVE'] : ['MEMORY']),
  });
  const main = single(factory.create({ contextId: 'run-1', scope: 'main' }));
  const attachment = (await contribute(main, 1)).attachments?.[0];
  assert.deepEqual(attachment, {
    id: 'workspace-memory',
    source: 'context-workspace',
    trust: 'trusted_data',
    content: '<recall source="memory" urgency="normal">the user prefers tea</recall>',
  });
  const subagent = single(factory.create({ contextId: 'run-2', scope: 'subagent' }));
  assert.deepEqual(await contribute(subagent, 1), { diagnostics: [] });
});

test('a budget passes through, and what it degraded comes back as diagnostics', async () => {
  const estimator: TokenEstimator = {
    family: 'unknown',
    exact: false,
    countText: (text) => text.length,
    countMessage: (message) => message.content.length,
    countTool: (tool) => tool.name.length,
  };
  const factory = workspaceContributorFactory({ workspace: workspaceWithBlocks(), domains: ['ACTION'], maxTokens: 60, estimator });
  // The plan costs 65 characters at full and 56 at compact.
  const contribution = await contribute(single(factory.create({ contextId: 'run-1', scope: 'main' })), 1);
  assert.equal(contribution.attachments?.[0]?.content, '<plan source="planner" urgency="normal">two steps</plan>');
  assert.deepEqual(contribution.diagnostics?.map((diagnostic) => diagnostic.code), ['CONTEXT_WORKSPACE_BLOCK_DEGRADED']);
});

test('an aborted turn does not resolve (and so does not activate) the workspace', () => {
  const workspace = workspaceWithBlocks();
  const contributor = single(workspaceContributorFactory({ workspace, domains: ['ACTION'] }).create({ contextId: 'run-1', scope: 'main' }));
  const controller = new AbortController();
  controller.abort(new Error('turn cancelled'));
  assert.throws(() => contributor.contribute(request(1, controller.signal)), /turn cancelled/);
});

test('unknown domains fail when the factory or the contributor is created, naming the index', () => {
  const workspace = workspaceWithBlocks();
  assert.throws(
    () => workspaceContributorFactory({ workspace, domains: ['ACTION', 'ACTIONS' as never] }),
    (error: unknown) => ContextWorkspaceInputError.isInstance(error) && error.field === 'domains[1]',
  );
  const factory = workspaceContributorFactory({ workspace, domains: () => ['MEMORY', 'MEMORY'] });
  assert.throws(
    () => factory.create({ contextId: 'run-1', scope: 'main' }),
    (error: unknown) => ContextWorkspaceInputError.isInstance(error) && error.field === 'domains[1]',
  );
  assert.throws(
    () => workspaceContributorFactory({ workspace, domains: ['ACTION'], maxTokens: 10 }),
    (error: unknown) => ContextWorkspaceInputError.isInstance(error) && error.field === 'estimator',
  );
});
