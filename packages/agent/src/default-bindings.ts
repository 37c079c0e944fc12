import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigurationError, resolveContextConfiguration, type ContextConfiguration, type ContextDiagnostic, type Timers } from '@strata/context';
import { createModelClientFromSpecifier, createModelSummarizer, type ModelClient } from '@strata/model';
import { createFileTraceSink, defaultTraceDirectory, openDefaultStores, openStores, type Stores } from '@strata/store';
import { registerStandardTools, ToolRegistry } from '@strata/tools';
import type { AgentBindings } from './create-agent-run.js';
import { createUpdatePlanTool } from './lanes/plan-tool.js';
import { resolveModelSettings, type ModelSettings } from './model-settings.js';

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
  /** The clock of window discovery's and provider counting's timeouts. Default: Node's timers. */
  readonly timers?: Timers;
  readonly fetch?: typeof globalThis.fetch;
}

export interface DefaultBindings {
  readonly bindings: AgentBindings;
  readonly configuration: ContextConfiguration;
  readonly dataDir: string;
  readonly stores: Stores;
  /** What the server said of the model's window, when it was asked. */
  readonly window?: ModelSettings['window'];
  /** What composing noticed (a configured window larger than the server accepts, a failed discovery); every run of the bindings reports them too. */
  readonly diagnostics: readonly ContextDiagnostic[];
  close(): Promise<void>;
}

/**
 * Bindings from the environment, for the CLI and servers:
 * STRATA_MODEL (`openai:gpt-4.1`, `anthropic:…`, `openai-compatible:<url>#<model>`),
 * STRATA_DATA_DIR (default ~/.strata), STRATA_STORE_URL (default the SQLite
 * file under the data directory), the context settings of
 * resolveContextConfiguration (every setting of the seed, validated), and
 * SCIENCE_AGENT_EXECUTOR, and how the model is counted and how large its
 * window is (`resolveModelSettings`: STRATA_TOKENIZER_JSON,
 * STRATA_TOKENIZER_PACKAGE, STRATA_PROVIDER_TOKEN_COUNT,
 * STRATA_MODEL_WINDOW_DISCOVERY). The tool table has the standard tools and
 * `update_plan`.
 */
export async function createDefaultBindings(options: DefaultBindingsOptions = {}): Promise<DefaultBindings> {
  const env = options.env ?? process.env;
  resolveExecutor(env);
  // Every context setting is checked before the model is made (resolveModelSettings reads them again with the server's window).
  resolveContextConfiguration(env, { modelContextTokens: options.modelContextTokens });
  const dataDir = resolve(env.STRATA_DATA_DIR?.trim() || join(homedir(), '.strata'));
  let model = options.model;
  // Only a model made from STRATA_MODEL is asked for its window and counts: a given client's server is not known here.
  let specifier: string | undefined;
  if (!model) {
    specifier = env.STRATA_MODEL?.trim();
    if (!specifier) throw new ConfigurationError({ setting: 'STRATA_MODEL', message: 'STRATA_MODEL is not set: name a model such as openai:gpt-4.1 or openai-compatible:http://127.0.0.1:11434/v1#llama3.1' });
    model = createModelClientFromSpecifier({ model: specifier, env });
  }
  const settings = await resolveModelSettings({ env, model, specifier, modelContextTokens: options.modelContextTokens, timers: options.timers, fetch: options.fetch });
  const { configuration, diagnostics } = settings;
  const storeUrl = env.STRATA_STORE_URL?.trim();
  const stores = storeUrl ? await openStores(storeUrl, { baseDirectory: dataDir, setting: 'STRATA_STORE_URL' }) : openDefaultStores({ dataDir });
  const tools = new ToolRegistry();
  tools.register(createUpdatePlanTool());
  registerStandardTools({ registry: tools, outputStore: stores.toolOutputs });
  const bindings: AgentBindings = {
    model,
    tools,
    outputStore: stores.toolOutputs,
    sessionStore: stores.sessions,
    configuration,
    summarizer: createModelSummarizer({ client: model }),
    // The model's family profile (qwen, gemma, claude, ...), not only OpenAI's: see tokenizerFamilyOf.
    estimator: settings.estimator,
    exactEstimator: settings.exactEstimator,
    ...(configuration.trace ? { traceSink: createFileTraceSink({ directory: configuration.traceDir ?? defaultTraceDirectory(dataDir) }) } : {}),
    diagnostics,
  };
  return { bindings, configuration, dataDir, stores, window: settings.window, diagnostics, close: () => stores.close() };
}
