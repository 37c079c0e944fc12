import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createAgentRun } from '@strata/agent';
import { loadSkills, registerStandardTools, skillCatalogContributorFactory } from '@strata/tools';
import { answer, call, exampleWorld, projectionOf, readNotesTool, scriptedSummarizer, systemPromptOf, writeSummary, type ExampleSummary } from './example-run.js';

const GOAL = 'Analyse the spectra of samples A to F and report the strongest peak.';
const SKILL_RULE = 'Rule 11: calibrate';

/**
 * A long autonomous run that crosses the compaction threshold: a skill is
 * read and a plan declared; a second run over the stored history reads page
 * after page until the original request, the plan call and the skill body
 * have been compacted away. The goal stays in the run contract, the plan in
 * its lane, and the skill as a reference with the hint to read it again.
 */
export async function runLongExample(options: { outDir: string }): Promise<ExampleSummary> {
  const skills = join(options.outDir, 'skills', 'spectra');
  await mkdir(skills, { recursive: true });
  const body = Array.from({ length: 12 }, (_, index) => `Rule ${index}: calibrate the spectrometer before sample ${index}.`).join('\n');
  await writeFile(join(skills, 'SKILL.md'), `---\nname: spectra\ndescription: Analyse spectra.\n---\n${body}\n`);
  const catalog = await loadSkills(join(options.outDir, 'skills'));
  const world = await exampleWorld({ outDir: options.outDir, tools: [readNotesTool] });
  registerStandardTools({ registry: world.registry, skills: catalog });
  const env = { STRATA_CONTEXT_WINDOW_TOKENS: '5000', STRATA_CONTEXT_DATA_BUDGET_TOKENS: '600', STRATA_CONTEXT_COMPACTION_PRESSURE_PERCENT: '80' };
  // Results sent whole (no masked view), so the run reaches the compaction threshold within its pages.
  const profile = { id: 'example-long', maskStoredResults: false, contributors: [skillCatalogContributorFactory({ catalog })] };
  const plan = { items: [{ step: 'read every page', status: 'in_progress' }, { step: 'report the peak', status: 'pending' }] };

  const first = [call('k1', 'read_skill', { name: 'spectra' }), call('plan1', 'update_plan', plan), call('n1', 'read_notes', { page: 1 }), answer('Page 1 read.')];
  const opening = await createAgentRun(profile, world.bindings({ script: first, env, summarizer: scriptedSummarizer }), { contextId: 'example-long', prompt: GOAL }).execute();
  const pages = [2, 3, 4, 5, 6, 7, 8].map((page) => call(`n${page}`, 'read_notes', { page }));
  const second = [...pages, call('k2', 'read_skill', { name: 'spectra' }), answer('The strongest peak is at 21.5.')];
  const result = await createAgentRun(profile, world.bindings({ script: second, env, summarizer: scriptedSummarizer }), { contextId: 'example-long', prompt: 'Continue with the remaining pages.' }).execute();

  const traces = world.traces.get('example-long') ?? [];
  const resumed = traces.slice(opening.turns);
  const occurrences = (text: string, needle: string) => text.split(needle).length - 1;
  return writeSummary(
    options.outDir,
    {
      example: 'long',
      description: 'A long autonomous run past the compaction threshold that keeps its plan, goal and skill references.',
      stopReason: result.stopReason,
      turns: result.turns,
      compactions: traces.filter((trace) => trace.compaction.reason !== null).length,
      planProgress: traces.at(-1)?.planProgress ?? null,
      checks: {
        completed: result.stopReason === 'completed',
        originalRequestCompactedAway: !result.finalMessages.some((message) => message.role === 'user' && message.content === GOAL),
        // In the history while it holds the request, in the run contract once compaction removed it; never both.
        goalSentOnce: resumed.every((trace) => systemPromptOf(trace).includes(GOAL) !== trace.llmInput.messages.some((message) => message.role === 'user' && message.content === GOAL)),
        goalInRunContractOnceCompacted: resumed.some((trace) => systemPromptOf(trace).includes(GOAL)),
        planKept: resumed.every((trace) => projectionOf(trace, 'plan_state')?.includes('read every page') === true),
        planAnchorLostObserved: resumed.some((trace) => trace.planProgress?.anchorFound === false),
        skillRereadHinted: resumed.some((trace) => projectionOf(trace, 'active_skills')?.includes('Call read_skill for "spectra" again') === true),
        skillBodyNeverDuplicated: traces.every((trace) => occurrences(JSON.stringify(trace.llmInput.messages), SKILL_RULE) <= 1),
      },
    },
    world.traces,
  );
}
