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
}

/** Each setting's `STRATA_` name, then the alias the original system documented. */
const NAMES = {
  mode: ['STRATA_CONTEXT_MODE', 'SCIENCE_AGENT_CONTEXT_MODE'],
  trace: ['STRATA_CONTEXT_TRACE', 'SCIENCE_AGENT_CONTEXT_TRACE'],
  traceDir: ['STRATA_CONTEXT_TRACE_DIR', 'SCIENCE_AGENT_CONTEXT_TRACE_DIR'],
  contextWindowTokens: ['STRATA_CONTEXT_WINDOW_TOKENS', 'SCIENCE_AGENT_CONTEXT_WINDOW_TOKENS'],
  modelMaxTokens: ['STRATA_MODEL_MAX_TOKENS', 'MODEL_MAX_TOKENS'],
  outputReserveTokens: ['STRATA_OUTPUT_RESERVE_TOKENS', 'OUTPUT_RESERVE_TOKENS'],
} as const;

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

/**
 * Reads the context settings from an environment record. Pure: the caller
 * passes `process.env` at the edge (CLI, default bindings).
 */
export function resolveContextConfiguration(environment: Environment): ContextConfiguration {
  const mode = read(environment, NAMES.mode);
  const trace = read(environment, NAMES.trace);
  const traceDir = read(environment, NAMES.traceDir);
  const window = read(environment, NAMES.contextWindowTokens);
  const max = read(environment, NAMES.modelMaxTokens);
  const reserve = read(environment, NAMES.outputReserveTokens);
  const modelMaxTokens = max ? parsePositiveInteger(max.name, max.value) : MODEL_MAX_TOKENS;
  const outputReserveTokens = reserve ? parsePositiveInteger(reserve.name, reserve.value) : OUTPUT_RESERVE_TOKENS;
  if (outputReserveTokens >= modelMaxTokens) {
    throw new ConfigurationError({
      setting: reserve?.name ?? NAMES.outputReserveTokens[0],
      message: `${reserve?.name ?? NAMES.outputReserveTokens[0]} (${outputReserveTokens}) must be smaller than ${max?.name ?? NAMES.modelMaxTokens[0]} (${modelMaxTokens})`,
    });
  }
  let traceOn = false;
  if (trace) {
    const value = trace.value.trim().toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(value)) traceOn = true;
    else if (!['0', 'false', 'no', 'off'].includes(value)) {
      throw new ConfigurationError({ setting: trace.name, message: `${trace.name} must be 1 or 0, got ${JSON.stringify(trace.value)}` });
    }
  }
  return {
    mode: mode ? parseContextMode(mode.name, mode.value) : 'dynamic',
    trace: traceOn,
    ...(traceDir ? { traceDir: traceDir.value } : {}),
    ...(window ? { contextWindowTokens: parsePositiveInteger(window.name, window.value) } : {}),
    modelMaxTokens,
    outputReserveTokens,
  };
}

export interface ResolvedContextBudget {
  /** min(context window when set, model max − output reserve): everything sent is charged here. */
  readonly inputCapTokens: number;
  readonly systemPromptTokens: number;
  readonly attachmentTokens: number;
  readonly contributedMessageTokens: number;
  /** Estimated input at or above this share of the cap triggers compaction. */
  readonly pressureTokens: number;
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
  /** Share of the cap at which token pressure starts. Default 0.8. */
  readonly pressureRatio?: number;
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

/** The run's budget, resolved once per run: the input cap and the limits of each part. */
export function resolveContextBudget(options: ContextBudgetOptions): ResolvedContextBudget {
  const inputCapTokens = inputCapOf(options);
  const part = (name: string, value: number | undefined, share: number) =>
    value === undefined ? Math.max(1, Math.floor(inputCapTokens * share)) : parsePositiveInteger(name, value);
  const pressureRatio = options.pressureRatio ?? 0.8;
  if (!(pressureRatio > 0 && pressureRatio <= 1)) {
    throw new ConfigurationError({ setting: 'pressureRatio', message: `pressureRatio must be in (0, 1], got ${pressureRatio}` });
  }
  return {
    inputCapTokens,
    systemPromptTokens: part('systemPromptTokens', options.systemPromptTokens, 0.25),
    attachmentTokens: part('attachmentTokens', options.attachmentTokens, 0.1),
    contributedMessageTokens: part('contributedMessageTokens', options.contributedMessageTokens, 0.05),
    pressureTokens: Math.floor(inputCapTokens * pressureRatio),
  };
}
