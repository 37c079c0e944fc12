import { StrataError, type JsonValue, type TokenEstimator, type ToolDefinition, type ToolExecutionContext, type ToolOutcome } from '@strata/context';
import { assembleWorkerMessages, type WorkerMessages } from './assemble-worker-messages.js';
import type { BlackboardStore } from './blackboard-store.js';
import { BlackboardConflictError } from './errors/blackboard-conflict-error.js';
import { fetchWorkerInputs } from './fetch-worker-inputs.js';
import type { InstanceManifest } from './instance-manifest.js';
import { parseWorkerOutput } from './parse-worker-output.js';
import { DEFAULT_PRESET, type CardMarker, type Preset } from './preset.js';
import { resolveWorkerContract, type WorkerContract } from './resolve-worker-contract.js';
import type { WellKnownTags } from './well-known-tags.js';
import { assembleWorkerContextSections } from './worker-context-sections.js';
import type { WorkerModel } from './worker-model.js';
import type { WorkerSkill } from './worker-skill.js';

export interface RunWorkerToolOptions {
  readonly store: BlackboardStore;
  readonly skills: ReadonlyMap<string, WorkerSkill>;
  readonly model: WorkerModel;
  /** `shared-context.md` of the package. */
  readonly sharedContext?: string;
  readonly preset?: Preset;
  /** When given, only its `runSkills` may run, each with its `contextProfile`. */
  readonly manifest?: InstanceManifest;
  readonly estimator?: TokenEstimator;
  readonly tags?: WellKnownTags;
  readonly cardSegments?: Readonly<Partial<Record<CardMarker, string>>>;
}

export const RUN_WORKER_TOOL_NAME = 'run_worker';

/**
 * `run_worker(skill, variant?)`: assembles the worker's context from the
 * blackboard by its contract alone (never from the agent's messages), calls
 * the model, and writes the worker's output tags in one commit guarded by
 * the revision it read. Any failure (bad input, model, output, a blackboard
 * that moved) is an error result and writes nothing; an aborted signal
 * propagates as its abort reason.
 */
export function createRunWorkerTool(options: RunWorkerToolOptions): ToolDefinition {
  const skillNames = [...(options.manifest?.runSkills ?? options.skills.keys())].sort();
  return {
    name: RUN_WORKER_TOOL_NAME,
    description:
      'Run one worker skill. The skill\'s contract decides what it reads from the blackboard and which tags it writes; ' +
      'you choose the skill, optionally a predefined variant, a task for this step, and for role_pov skills the role it speaks for.',
    parameters: {
      type: 'object',
      properties: {
        skill: { type: 'string', enum: skillNames, description: 'The worker skill to run.' },
        variant: { type: 'string', description: 'A variant predefined in the skill; default: the instance profile\'s.' },
        task: { type: 'string', description: 'This step\'s task, placed after everything else in the worker prompt.' },
        pov: { type: 'string', description: 'For role_pov skills: the role the worker speaks for.' },
      },
      required: ['skill'],
      additionalProperties: false,
    },
    execute: (input, context) => runWorker(options, input, context),
  };
}

async function runWorker(options: RunWorkerToolOptions, input: JsonValue, context: ToolExecutionContext): Promise<ToolOutcome> {
  const request = readInput(input);
  if (typeof request === 'string') return failure(request);
  const skill = options.skills.get(request.skill);
  if (skill === undefined || (options.manifest !== undefined && !options.manifest.runSkills.includes(request.skill))) {
    return failure(`"${request.skill}" is not a run skill of this instance`);
  }
  const profile = options.manifest?.contextProfile[request.skill];
  const variant = request.variant ?? profile?.variant;
  let contract: WorkerContract;
  try {
    contract = resolveWorkerContract({
      skill,
      variant,
      historyPolicy: profile?.historyPolicy,
      historyTag: options.tags?.history,
    });
  } catch (error) {
    if (StrataError.isInstance(error)) return failure(error.message);
    throw error;
  }

  const preset = options.preset ?? DEFAULT_PRESET;
  let assembled: WorkerMessages;
  let revision: number;
  try {
    const inputs = await fetchWorkerInputs({
      store: options.store,
      contract,
      signal: context.signal,
      tags: options.tags,
      estimator: options.estimator,
    });
    revision = inputs.revision;
    const sections = assembleWorkerContextSections({
      contract,
      board: inputs.board,
      contextOrder: inputs.contextOrder,
      sharedContext: options.sharedContext,
      task: request.task,
      pov: request.pov,
      estimator: options.estimator,
      tags: options.tags,
    });
    assembled = assembleWorkerMessages({ sections, preset, cardSegments: options.cardSegments });
  } catch (error) {
    // A malformed order table, an unreadable store: the agent reads why; nothing was written.
    if (StrataError.isInstance(error)) return failure(`assembling the context of ${contract.skill} failed: ${error.message}`);
    throw error;
  }

  let text: string;
  try {
    text = (await options.model.generate({ messages: assembled.messages, generation: preset.generation, signal: context.signal })).text;
  } catch (error) {
    context.signal.throwIfAborted();
    return failure(`the model call for ${contract.skill} failed; the blackboard is unchanged: ${(error as Error).message ?? String(error)}`);
  }
  const output = parseWorkerOutput(text, contract);
  if (!output.ok) return failure(`${contract.skill} produced unusable output; the blackboard is unchanged: ${output.problem}`);
  if (output.writes.length === 0) return { content: `${contract.skill} ran and writes no tags.`, data: { skill: contract.skill, written: [] } };

  try {
    const result = await options.store.commit(
      { author: { kind: 'worker', name: contract.skill }, writes: output.writes, expectedRevision: revision },
      { signal: context.signal },
    );
    const written = result.entries.map((entry) => `${entry.tag} (revision ${entry.revision})`);
    return {
      content: `${contract.skill} wrote ${written.join(', ')}.`,
      data: {
        skill: contract.skill,
        ...(contract.variant === undefined ? {} : { variant: contract.variant }),
        form: assembled.form,
        written: result.entries.map((entry) => ({ tag: entry.tag, revision: entry.revision })),
        diagnostics: assembled.diagnostics.map((diagnostic) => diagnostic.code),
      },
    };
  } catch (error) {
    if (BlackboardConflictError.isInstance(error)) {
      return failure(`the blackboard changed while ${contract.skill} ran (revision ${error.expectedRevision} → ${error.actualRevision}); nothing written, run it again`);
    }
    if (StrataError.isInstance(error)) return failure(`writing the output of ${contract.skill} failed; the blackboard is unchanged: ${error.message}`);
    throw error;
  }
}

interface RunWorkerInput {
  readonly skill: string;
  readonly variant?: string;
  readonly task?: string;
  readonly pov?: string;
}

function readInput(input: JsonValue): RunWorkerInput | string {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return 'run_worker expects an object { skill, variant?, task?, pov? }';
  for (const key of Object.keys(input)) {
    if (!['skill', 'variant', 'task', 'pov'].includes(key)) {
      return `run_worker takes no "${key}": the skill's contract decides what it reads; choose a skill and a variant`;
    }
  }
  const { skill, variant, task, pov } = input;
  if (typeof skill !== 'string' || skill.length === 0) return 'run_worker needs "skill", a skill name';
  for (const [key, value] of [['variant', variant], ['task', task], ['pov', pov]] as const) {
    if (value !== undefined && typeof value !== 'string') return `run_worker "${key}" must be a string`;
  }
  return {
    skill,
    ...(typeof variant === 'string' ? { variant } : {}),
    ...(typeof task === 'string' ? { task } : {}),
    ...(typeof pov === 'string' ? { pov } : {}),
  };
}

function failure(content: string): ToolOutcome {
  return { content, isError: true };
}
