import { createAgentRun } from '@strata/agent';
import { answer, call, exampleWorld, projectionOf, readNotesTool, writeSummary, type ExampleSummary } from './example-run.js';

/** A short run: a plan, one tool call, an answer. */
export async function runShortExample(options: { outDir: string }): Promise<ExampleSummary> {
  const world = await exampleWorld({ outDir: options.outDir, tools: [readNotesTool] });
  const script = [
    call('plan1', 'update_plan', { items: [{ step: 'read page 1', status: 'in_progress' }, { step: 'report', status: 'pending' }] }),
    call('n1', 'read_notes', { page: 1 }),
    answer('The sample was stable at 21.5 C.'),
  ];
  const result = await createAgentRun({ id: 'example-short', sections: { identity: 'You are a careful lab assistant.' } }, world.bindings({ script }), { contextId: 'example-short', prompt: 'What temperature was the sample at?' }).execute();
  const traces = world.traces.get('example-short') ?? [];
  const last = traces.at(-1);
  return writeSummary(
    options.outDir,
    {
      example: 'short',
      description: 'A short run: update_plan, one tool call, an answer.',
      stopReason: result.stopReason,
      turns: result.turns,
      compactions: traces.filter((trace) => trace.compaction.reason !== null).length,
      planProgress: last?.planProgress ?? null,
      checks: { completed: result.stopReason === 'completed', planProjected: last !== undefined && projectionOf(last, 'plan_state') !== undefined },
    },
    world.traces,
  );
}
