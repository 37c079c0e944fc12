import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigurationError, ConservativeTokenEstimator, exactTokenEstimatorFor, hasBuiltInExactTokenizer, resolveContextConfiguration, tokenizerFamilyOf, type ContextConfiguration } from '@strata/context';
import { createModelClientFromSpecifier, createModelSummarizer, type ModelClient } from '@strata/model';
import { createFileTraceSink, defaultTraceDirectory, openDefaultStores, openStores, type Stores } from '@strata/store';
import { registerStandardTools, ToolRegistry } from '@strata/tools';
import type { AgentBindings } from './create-agent-run.js';
import { createUpdatePlanTool } from './lanes/plan-tool.js';

type Environment = Readonly<Record<string, string | undefined>>;

export const EXECUTORS = ['native'] as const;

/** The executor named by SCIENCE_AGENT_EXECUTOR (or STRATA_EXECUTOR); only `native` exists in Strata. */
export function resolveExecutor(environment: Environment): 'native' {
  for (const name of ['SCIENCE_AGENT_EXECUTOR', 'STRATA_EXECUTOR']) {
    const value = environment[name]?.trim().toLowerCase();
    if (value === undefined || value === '') continue;
    if (value !== 'native') {
      throw new ConfigurationError({ setting: name, message: `${name}=${JSON.stringify(environment[name])} is not an executor Strata has; use "native"` });
    }
  }
  return 'native';
}

export interface DefaultBindingsOptions {
  /** Default: process.env, read here at the edge and nowhere deeper. */
  readonly env?: Environment;
  /** Overrides STRATA_MODEL (tests pass a scripted model here). */
  readonly model?: ModelClient;
  /**
   * The model's own context limit, a fact of its provider configuration: it
   * seeds the model max (and so the window); STRATA_MODEL_MAX_TOKENS /
   * MODEL_MAX_TOKENS win when set.
   */
  readonly modelContextTokens?: number;
}

export interface DefaultBindings {
  readonly bindings: AgentBindings;
  readonly configuration: ContextConfiguration;
  readonly dataDir: string;
  readonly stores: Stores;
  close(): Promise<void>;
}

/**
 * Bindings from the environment, for the CLI and servers:
 * STRATA_MODEL (`openai:gpt-4.1`, `anthropic:…`, `openai-compatible:<url>#<model>`),
 * STRATA_DATA_DIR (default ~/.strata), STRATA_STORE_URL (default the SQLite
 * file under the data directory), the context settings of
 * resolveContextConfiguration (every setting of the seed, validated), and
 * SCIENCE_AGENT_EXECUTOR. The tool table has the standard tools and
 * `update_plan`.
 */
export async function createDefaultBindings(options: DefaultBindingsOptions = {}): Promise<DefaultBindings> {
  const env = options.env ?? process.env;
  resolveExecutor(env);
  const configuration = resolveContextConfiguration(env, { modelContextTokens: options.modelContextTokens });
  const dataDir = resolve(env.STRATA_DATA_DIR?.trim() || join(homedir(), '.strata'));
  let model = options.model;
  if (!model) {
    const specifier = env.STRATA_MODEL?.trim();
    if (!specifier) throw new ConfigurationError({ setting: 'STRATA_MODEL', message: 'STRATA_MODEL is not set: name a model such as openai:gpt-4.1 or openai-compatible:http://127.0.0.1:11434/v1#llama3.1' });
    model = createModelClientFromSpecifier({ model: specifier, env });
  }
  const storeUrl = env.STRATA_STORE_URL?.trim();
  const stores = storeUrl ? await openStores(storeUrl, { baseDirectory: dataDir, setting: 'STRATA_STORE_URL' }) : openDefaultStores({ dataDir });
  const tools = new ToolRegistry();
  tools.register(createUpdatePlanTool());
  registerStandardTools({ registry: tools, outputStore: stores.toolOutputs });
  const family = tokenizerFamilyOf(model.modelId);
  const bindings: AgentBindings = {
    model,
    tools,
    outputStore: stores.toolOutputs,
    sessionStore: stores.sessions,
    configuration,
    summarizer: createModelSummarizer({ client: model }),
    // The model's family profile (qwen, gemma, claude, ...), not only OpenAI's: see tokenizerFamilyOf.
    estimator: new ConservativeTokenEstimator({ family }),
    ...(hasBuiltInExactTokenizer(family) ? { exactEstimator: exactTokenEstimatorFor(model.modelId) } : {}),
    ...(configuration.trace ? { traceSink: createFileTraceSink({ directory: configuration.traceDir ?? defaultTraceDirectory(dataDir) }) } : {}),
  };
  return { bindings, configuration, dataDir, stores, close: () => stores.close() };
}
