import { ConfigurationError } from './errors/configuration-error.js';

export type ContextMode = 'dynamic' | 'shadow' | 'legacy';
export const CONTEXT_MODES: readonly ContextMode[] = ['dynamic', 'shadow', 'legacy'];

/** Default model context size when MODEL_MAX_TOKENS is not set. */
export const MODEL_MAX_TOKENS = 128_000;
/** Default: 16,384 tokens, the output reserve. */
export const OUTPUT_RESERVE_TOKENS = 16_384;

export interface ContextConfiguration {
  readonly mode: ContextMode;
  readonly trace: boolean;
  /** Undefined means `<data-dir>/context-traces`, chosen at the edge that knows the data directory. */
  readonly traceDir?: string;
  readonly contextWindowTokens?: number;
  readonly modelMaxTokens: number;
  readonly outputReserveTokens: number;
  /** Compaction starts when the input reaches this percent of the cap (1 to 100). Default 80. */
  readonly compactionPressurePercent?: number;
  /** Compaction aims the input at this percent of the cap; below the pressure percent. Default half the pressure. */
  readonly compactionRetainPercent?: number;
  /** Summary attempts after the first before the deterministic projection stands. Default 1. */
  readonly summaryRetries?: number;
  /** Characters of a compacted tool result's head/tail preview, together. Default 240. */
  readonly toolPreviewChars?: number;
  /** The whole system prompt. Default a quarter of the cap. */
  readonly systemPromptTokens?: number;
  /** One non-protected section at most (a longer one is truncated). Default: no limit but the prompt's. */
  readonly sectionTokens?: number;
  /** All contributed data_only messages together. Default a twentieth of the cap. */
  readonly contributedMessageTokens?: number;
  /** All attachments together. Default a tenth of the cap. */
  readonly attachmentTokens?: number;
  /** Contributed messages per call at most; the newest win. Default: no limit but their budget. */
  readonly contributedMessages?: number;
  /** One contributed message at most (a longer one is truncated). Default: no limit but their budget. */
  readonly contributedMessageSizeTokens?: number;
  /** The message-count compaction trigger: compact when the history holds more messages. Default: off. */
  readonly windowMessages?: number;
  /** The round trigger: compact when the history holds more model steps. Default: off. */
  readonly windowRounds?: number;
  /**
   * `false`: the provider sees the credentials tool outputs carried, for
   * agents that must handle keys; the run keeps them in memory only (a
   * `CredentialVault`) and every store, trace, event and DBOS step still
   * holds markers. A value from an earlier run or another worker stays a
   * marker. Default true: the provider sees markers too.
   * (`STRATA_REDACT_TOOL_OUTPUTS`)
   */
  readonly redactToolOutputs?: boolean;
}

/** The positive-integer settings beside the cap, by configuration field. */
const INTEGER_SETTINGS = [
  'compactionPressurePercent',
  'compactionRetainPercent',
  'summaryRetries',
  'toolPreviewChars',
  'systemPromptTokens',
  'sectionTokens',
  'contributedMessageTokens',
  'attachmentTokens',
  'contributedMessages',
  'contributedMessageSizeTokens',
  'windowMessages',
  'windowRounds',
] as const;

type IntegerSetting = (typeof INTEGER_SETTINGS)[number];

/** Each setting's `STRATA_` name, then the alias the original system documented. */
const NAMES: Readonly<Record<'mode' | 'trace' | 'traceDir' | 'contextWindowTokens' | 'modelMaxTokens' | 'outputReserveTokens' | IntegerSetting, readonly [string, string]>> = {
  mode: ['STRATA_CONTEXT_MODE', 'SCIENCE_AGENT_CONTEXT_MODE'],
  trace: ['STRATA_CONTEXT_TRACE', 'SCIENCE_AGENT_CONTEXT_TRACE'],
  traceDir: ['STRATA_CONTEXT_TRACE_DIR', 'SCIENCE_AGENT_CONTEXT_TRACE_DIR'],
  contextWindowTokens: ['STRATA_CONTEXT_WINDOW_TOKENS', 'SCIENCE_AGENT_CONTEXT_WINDOW_TOKENS'],
  modelMaxTokens: ['STRATA_MODEL_MAX_TOKENS', 'MODEL_MAX_TOKENS'],
  outputReserveTokens: ['STRATA_OUTPUT_RESERVE_TOKENS', 'OUTPUT_RESERVE_TOKENS'],
  compactionPressurePercent: ['STRATA_CONTEXT_COMPACTION_PRESSURE_PERCENT', 'SCIENCE_AGENT_CONTEXT_COMPACTION_PRESSURE_PERCENT'],
  compactionRetainPercent: ['STRATA_CONTEXT_COMPACTION_RETAIN_PERCENT', 'SCIENCE_AGENT_CONTEXT_COMPACTION_RETAIN_PERCENT'],
  summaryRetries: ['STRATA_CONTEXT_SUMMARY_RETRIES', 'SCIENCE_AGENT_CONTEXT_SUMMARY_RETRIES'],
  toolPreviewChars: ['STRATA_CONTEXT_TOOL_PREVIEW_CHARS', 'SCIENCE_AGENT_CONTEXT_TOOL_PREVIEW_CHARS'],
  systemPromptTokens: ['STRATA_CONTEXT_PROMPT_BUDGET_TOKENS', 'SCIENCE_AGENT_CONTEXT_PROMPT_BUDGET_TOKENS'],
  sectionTokens: ['STRATA_CONTEXT_SECTION_BUDGET_TOKENS', 'SCIENCE_AGENT_CONTEXT_SECTION_BUDGET_TOKENS'],
  contributedMessageTokens: ['STRATA_CONTEXT_DATA_BUDGET_TOKENS', 'SCIENCE_AGENT_CONTEXT_DATA_BUDGET_TOKENS'],
  attachmentTokens: ['STRATA_CONTEXT_ATTACHMENT_BUDGET_TOKENS', 'SCIENCE_AGENT_CONTEXT_ATTACHMENT_BUDGET_TOKENS'],
  contributedMessages: ['STRATA_CONTEXT_CONTRIBUTED_MESSAGES', 'SCIENCE_AGENT_CONTEXT_CONTRIBUTED_MESSAGES'],
  contributedMessageSizeTokens: ['STRATA_CONTEXT_CONTRIBUTED_MESSAGE_TOKENS', 'SCIENCE_AGENT_CONTEXT_CONTRIBUTED_MESSAGE_TOKENS'],
  windowMessages: ['STRATA_CONTEXT_WINDOW_MESSAGES', 'SCIENCE_AGENT_CONTEXT_WINDOW_MESSAGES'],
  windowRounds: ['STRATA_CONTEXT_WINDOW_ROUNDS', 'SCIENCE_AGENT_CONTEXT_WINDOW_ROUNDS'],
};

/** The one setting without an alias in the original system. */
const REDACT_TOOL_OUTPUTS = 'STRATA_REDACT_TOOL_OUTPUTS';

/** Every environment variable the context settings read, `STRATA_` names first. */
export const CONTEXT_SETTING_NAMES: readonly string[] = [...Object.values(NAMES).flat(), REDACT_TOOL_OUTPUTS];

type Environment = Readonly<Record<string, string | undefined>>;

/** A setting by its `STRATA_` name or its alias; both set must agree. */
function read(environment: Environment, names: readonly [string, string]): { name: string; value: string } | undefined {
  const [strata, alias] = names;
  const first = environment[strata];
  const second = environment[alias];
  if (first !== undefined && first !== '' && second !== undefined && second !== '' && first !== second) {
    throw new ConfigurationError({ setting: strata, message: `${strata}=${JSON.stringify(first)} and ${alias}=${JSON.stringify(second)} disagree; set one` });
  }
  if (first !== undefined && first !== '') return { name: strata, value: first };
  if (second !== undefined && second !== '') return { name: alias, value: second };
  return undefined;
}

/** A configured number: a positive integer, or a ConfigurationError naming the variable. */
export function parsePositiveInteger(name: string, value: string | number): number {
  const text = String(value).trim();
  const number = Number(text);
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(number) || number <= 0) {
    throw new ConfigurationError({ setting: name, message: `${name} must be a positive integer, got ${JSON.stringify(value)}` });
  }
  return number;
}

export function parseContextMode(name: string, value: string): ContextMode {
  const mode = value.trim().toLowerCase();
  if (!(CONTEXT_MODES as readonly string[]).includes(mode)) {
    throw new ConfigurationError({ setting: name, message: `${name} must be one of ${CONTEXT_MODES.join(', ')}, got ${JSON.stringify(value)}` });
  }
  return mode as ContextMode;
}

export interface ResolveContextConfigurationOptions {
  /**
   * The model's own context limit, a fact of the provider configuration: it
   * is the model max when `STRATA_MODEL_MAX_TOKENS` / `MODEL_MAX_TOKENS` is
   * not set (the environment wins).
   */
  readonly modelContextTokens?: number;
}

/**
 * Reads the context settings from an environment record, validated with the
 * seed's rules: every number a positive integer; the pressure percent
 * between 1 and 100; retain below pressure; the output reserve below the
 * model max. Any other value is a ConfigurationError naming the variable.
 * Pure: the caller passes `process.env` at the edge (CLI, default bindings).
 */
export function resolveContextConfiguration(environment: Environment, options: ResolveContextConfigurationOptions = {}): ContextConfiguration {
  const mode = read(environment, NAMES.mode);
  const trace = read(environment, NAMES.trace);
  const traceDir = read(environment, NAMES.traceDir);
  const window = read(environment, NAMES.contextWindowTokens);
  const max = read(environment, NAMES.modelMaxTokens);
  const reserve = read(environment, NAMES.outputReserveTokens);
  const modelDefault = options.modelContextTokens === undefined ? MODEL_MAX_TOKENS : parsePositiveInteger('modelContextTokens', options.modelContextTokens);
  const modelMaxTokens = max ? parsePositiveInteger(max.name, max.value) : modelDefault;
  const outputReserveTokens = reserve ? parsePositiveInteger(reserve.name, reserve.value) : Math.min(OUTPUT_RESERVE_TOKENS, Math.floor(modelMaxTokens / 4));
  if (outputReserveTokens >= modelMaxTokens) {
    throw new ConfigurationError({
      setting: reserve?.name ?? NAMES.outputReserveTokens[0],
      message: `${reserve?.name ?? NAMES.outputReserveTokens[0]} (${outputReserveTokens}) must be smaller than ${max?.name ?? NAMES.modelMaxTokens[0]} (${modelMaxTokens})`,
    });
  }
  const traceOn = trace ? parseSwitch(trace.name, trace.value) : false;
  const redact = environment[REDACT_TOOL_OUTPUTS];
  const redactToolOutputs = redact === undefined || redact === '' ? undefined : parseSwitch(REDACT_TOOL_OUTPUTS, redact);
  const integers: Partial<Record<IntegerSetting, number>> = {};
  const names: Partial<Record<IntegerSetting, string>> = {};
  for (const key of INTEGER_SETTINGS) {
    const setting = read(environment, NAMES[key]);
    if (!setting) continue;
    integers[key] = parsePositiveInteger(setting.name, setting.value);
    names[key] = setting.name;
  }
  const pressure = integers.compactionPressurePercent;
  if (pressure !== undefined && pressure > 100) {
    throw new ConfigurationError({ setting: names.compactionPressurePercent!, message: `${names.compactionPressurePercent} must be between 1 and 100, got ${pressure}` });
  }
  const retain = integers.compactionRetainPercent;
  const effectivePressure = pressure ?? DEFAULT_PRESSURE_PERCENT;
  if (retain !== undefined && retain >= effectivePressure) {
    const pressureName = names.compactionPressurePercent ?? `${NAMES.compactionPressurePercent[0]} (default)`;
    throw new ConfigurationError({ setting: names.compactionRetainPercent!, message: `${names.compactionRetainPercent} (${retain}) must be below ${pressureName} (${effectivePressure})` });
  }
  return {
    mode: mode ? parseContextMode(mode.name, mode.value) : 'dynamic',
    trace: traceOn,
    ...(traceDir ? { traceDir: traceDir.value } : {}),
    ...(window ? { contextWindowTokens: parsePositiveInteger(window.name, window.value) } : {}),
    modelMaxTokens,
    outputReserveTokens,
    ...integers,
    ...(redactToolOutputs === undefined ? {} : { redactToolOutputs }),
  };
}

/** `1`/`true`/`yes`/`on` or `0`/`false`/`no`/`off`; anything else is a ConfigurationError naming the variable. */
function parseSwitch(name: string, text: string): boolean {
  const value = text.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  if (['0', 'false', 'no', 'off'].includes(value)) return false;
  throw new ConfigurationError({ setting: name, message: `${name} must be 1 or 0, got ${JSON.stringify(text)}` });
}

/**
 * Default: compaction starts at 90 percent of the input cap. Compaction
 * rewrites the prompt cache from its first change; starting later spends
 * fewer rewrites on runs that end before the cap (80 cost 1-2% more in the
 * replay's cache-priced cost on tau-bench, and did no better elsewhere).
 */
export const DEFAULT_PRESSURE_PERCENT = 90;

export interface ResolvedContextBudget {
  /** min(context window when set, model max − output reserve): everything sent is charged here. */
  readonly inputCapTokens: number;
  readonly systemPromptTokens: number;
  readonly attachmentTokens: number;
  readonly contributedMessageTokens: number;
  /** Estimated input at or above this share of the cap triggers compaction. */
  readonly pressureTokens: number;
  /** One non-protected section at most; absent: only the prompt budget limits it. */
  readonly sectionTokens?: number;
  /** Contributed messages per call at most (the newest win); absent: only their budget limits them. */
  readonly contributedMessages?: number;
  /** One contributed message at most; absent: only their budget limits it. */
  readonly contributedMessageSizeTokens?: number;
}

/** Where the input cap comes from: the model's size less the output reserve (and an optional window), or given directly. */
export type ContextBudgetOptions = (
  | {
      readonly modelMaxTokens: number;
      readonly outputReserveTokens: number;
      readonly contextWindowTokens?: number;
      readonly inputCapTokens?: undefined;
    }
  | {
      /** The input cap itself, for callers that know it (replays, adapters inside another loop). */
      readonly inputCapTokens: number;
    }
) & {
  /** Default: a quarter of the cap. */
  readonly systemPromptTokens?: number;
  /** Default: a tenth of the cap. */
  readonly attachmentTokens?: number;
  /** Default: a twentieth of the cap. */
  readonly contributedMessageTokens?: number;
  readonly sectionTokens?: number;
  readonly contributedMessages?: number;
  readonly contributedMessageSizeTokens?: number;
  /** Share of the cap at which token pressure starts. Default 0.8 (or `compactionPressurePercent` / 100). */
  readonly pressureRatio?: number;
  /** The configured form of `pressureRatio`, 1 to 100. */
  readonly compactionPressurePercent?: number;
};

/** The input cap: min(context window when set, model max − output reserve), or the cap given. */
function inputCapOf(options: ContextBudgetOptions): number {
  if (options.inputCapTokens !== undefined) return parsePositiveInteger('inputCapTokens', options.inputCapTokens);
  const modelMaxTokens = parsePositiveInteger('modelMaxTokens', options.modelMaxTokens);
  const outputReserveTokens = parsePositiveInteger('outputReserveTokens', options.outputReserveTokens);
  if (outputReserveTokens >= modelMaxTokens) {
    throw new ConfigurationError({ setting: 'outputReserveTokens', message: `outputReserveTokens (${outputReserveTokens}) must be smaller than modelMaxTokens (${modelMaxTokens})` });
  }
  const modelCap = modelMaxTokens - outputReserveTokens;
  return options.contextWindowTokens === undefined ? modelCap : Math.min(parsePositiveInteger('contextWindowTokens', options.contextWindowTokens), modelCap);
}

/** The run's budget, resolved once per run: the input cap and the limits of each part. Accepts a `ContextConfiguration` as it is. */
export function resolveContextBudget(options: ContextBudgetOptions): ResolvedContextBudget {
  const inputCapTokens = inputCapOf(options);
  const part = (name: string, value: number | undefined, share: number) =>
    value === undefined ? Math.max(1, Math.floor(inputCapTokens * share)) : parsePositiveInteger(name, value);
  const optional = (name: string, value: number | undefined) => (value === undefined ? {} : { [name]: parsePositiveInteger(name, value) });
  const pressureRatio = options.pressureRatio ?? (options.compactionPressurePercent ?? DEFAULT_PRESSURE_PERCENT) / 100;
  if (!(pressureRatio > 0 && pressureRatio <= 1)) {
    throw new ConfigurationError({ setting: 'pressureRatio', message: `pressureRatio must be in (0, 1], got ${pressureRatio}` });
  }
  return {
    inputCapTokens,
    systemPromptTokens: part('systemPromptTokens', options.systemPromptTokens, 0.25),
    attachmentTokens: part('attachmentTokens', options.attachmentTokens, 0.1),
    contributedMessageTokens: part('contributedMessageTokens', options.contributedMessageTokens, 0.05),
    pressureTokens: Math.floor(inputCapTokens * pressureRatio),
    ...optional('sectionTokens', options.sectionTokens),
    ...optional('contributedMessages', options.contributedMessages),
    ...optional('contributedMessageSizeTokens', options.contributedMessageSizeTokens),
  };
}
