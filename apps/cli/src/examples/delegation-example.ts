import { createAgentRun, createDelegateTool, createReviewTool, inputLaneReducer } from '@strata/agent';
import type { ToolDefinition } from '@strata/context';
import { ToolRegistry } from '@strata/tools';
import { answer, call, exampleWorld, projectionOf, readNotesTool, writeSummary, type ExampleSummary } from './example-run.js';

const writeArtifactTool: ToolDefinition = {
  name: 'write_artifact',
  description: 'Saves a named artifact of this run.',
  parameters: { type: 'object', properties: { name: { type: 'string' }, content: { type: 'string' } }, required: ['name', 'content'] },
  execute: (input) => ({ content: `saved ${(input as { name: string }).name}` }),
};

/** A run with a sub-agent and a reviewer: the child's summary and the verdict come back into the Delegation and Review lanes. */
export async function runDelegationExample(options: { outDir: string }): Promise<ExampleSummary> {
  const world = await exampleWorld({ outDir: options.outDir, tools: [writeArtifactTool] });
  const childTools = new ToolRegistry();
  childTools.register(readNotesTool);
  const child = world.bindings({ script: [call('c1', 'read_notes', { page: 2 }), answer('Page 2: the sample was stable at 21.5 C.')], registry: childTools, env: { STRATA_CONTEXT_WINDOW_TOKENS: '8000' } });
  const reviewer = world.bindings({ script: [answer('{"verdict": "approve", "summary": "The table matches page 2.", "issues": []}')], registry: new ToolRegistry(), env: { STRATA_CONTEXT_WINDOW_TOKENS: '8000' } });
  world.registry.register(createDelegateTool({ profile: { id: 'example-reader' }, bindings: child }));
  world.registry.register(createReviewTool({ profile: { id: 'example-reviewer', sections: { identity: 'You review artifacts strictly.' } }, bindings: reviewer }));
  const script = [
    call('d1', 'delegate', { task: 'Read page 2 of the lab notes and summarise the temperature.' }),
    call('a1', 'write_artifact', { name: 'table', content: 'sample | T\nA | 21.5 C' }),
    call('r1', 'review', { artifacts: ['table'], criteria: 'agreement with the notes' }),
    answer('The reviewed table says 21.5 C.'),
  ];
  const profile = { id: 'example-lead', laneReducers: [inputLaneReducer({ tool: 'write_artifact', lane: 'artifact', keyField: 'name' })] };
  const result = await createAgentRun(profile, world.bindings({ script }), { contextId: 'example-delegation', prompt: 'Find the temperature through a sub-agent and have the table reviewed.' }).execute();
  const traces = world.traces.get('example-delegation') ?? [];
  const last = traces.at(-1);
  return writeSummary(
    options.outDir,
    {
      example: 'delegation',
      description: 'A run with a sub-agent (delegate) and a reviewer (review), each through createAgentRun with its own scope and budget.',
      stopReason: result.stopReason,
      turns: result.turns,
      compactions: traces.filter((trace) => trace.compaction.reason !== null).length,
      planProgress: last?.planProgress ?? null,
      checks: {
        completed: result.stopReason === 'completed',
        subagentScope: (world.traces.get('example-delegation/subagent/d1') ?? []).every((trace) => trace.scope === 'subagent'),
        reviewerScope: (world.traces.get('example-delegation/reviewer/r1') ?? []).every((trace) => trace.scope === 'reviewer'),
        delegationLane: last !== undefined && projectionOf(last, 'delegation_state')?.includes('21.5 C') === true,
        reviewLane: last !== undefined && projectionOf(last, 'review_state')?.includes('The table matches page 2.') === true,
      },
    },
    world.traces,
  );
}
