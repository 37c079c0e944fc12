import { checkJsonValue, ContextInputError, MAX_JSON_DEPTH, type JsonValue, type ToolCall, type ToolDefinition, type ToolOutcome, type ToolSchema } from '@strata/context';
import { ToolDefinitionError } from '../errors/tool-definition-error.js';
import type { JsonSchemaValidator } from '../schema/json-schema-validator.js';
import { describeThrown, toolErrorOutcome } from '../tool-error.js';
import { DEFAULT_REPEATED_CALL_LIMIT, RepeatedCallGuard } from './loop-guard.js';
import { normalizeParameterSchema } from './parameter-schema.js';

/** Provider tool names: letters, digits, `_` and `-`, 1 to 64 characters (OpenAI and Anthropic agree). */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export interface ToolRegistrationOptions {
  /** Hidden from the model until promoted through discovery (`search_tools`). Default false. */
  readonly deferred?: boolean;
  /** Words discovery matches besides name and description: server name, domain, aliases. */
  readonly routingHints?: readonly string[];
}

export interface ToolRegistration extends ToolRegistrationOptions {
  readonly tool: ToolDefinition;
}

/** A deferred tool as discovery sees it. */
export interface DeferredToolInfo {
  readonly name: string;
  readonly description: string;
  readonly routingHints: readonly string[];
  readonly promoted: boolean;
}

export interface ToolRegistryOptions {
  /** The n-th identical call in a row (same tool, same arguments, same context) is refused. Default 3. */
  readonly repeatedCallLimit?: number;
  /** Validation issues reported to the model per call. Default 10. */
  readonly maxValidationIssues?: number;
}

export interface ToolExecuteOptions {
  readonly contextId: string;
  readonly signal?: AbortSignal;
}

const DEFAULTS = Object.freeze({ repeatedCallLimit: DEFAULT_REPEATED_CALL_LIMIT, maxValidationIssues: 10 });

interface Entry {
  readonly definition: ToolDefinition;
  readonly schema: ToolSchema;
  /** Compiled once, at registration. */
  readonly validate: JsonSchemaValidator;
  readonly deferred: boolean;
  readonly routingHints: readonly string[];
}

/**
 * The tool table of one run. Registration fails loudly (a bad definition is
 * the caller's bug); execution never throws for the model's mistakes: an
 * unknown tool, an undiscovered deferred tool, arguments that fail the
 * schema, a repeated identical call, or a throwing handler each come back as
 * a structured error outcome (`toolErrorOutcome`).
 */
export class ToolRegistry {
  readonly #entries = new Map<string, Entry>();
  readonly #promoted = new Set<string>();
  readonly #guard: RepeatedCallGuard;
  readonly #maxValidationIssues: number;

  constructor(options: ToolRegistryOptions = {}) {
    const { repeatedCallLimit = DEFAULTS.repeatedCallLimit, maxValidationIssues = DEFAULTS.maxValidationIssues } = options;
    this.#guard = new RepeatedCallGuard(repeatedCallLimit);
    this.#maxValidationIssues = maxValidationIssues;
  }

  /** Registers one tool. Throws `ToolDefinitionError` for a bad or duplicate name or a malformed schema. */
  register(tool: ToolDefinition, options: ToolRegistrationOptions = {}): void {
    const name: unknown = tool?.name;
    if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
      throw new ToolDefinitionError({
        code: 'TOOL_NAME_INVALID',
        toolName: String(name),
        message: `tool name ${JSON.stringify(name)} is invalid: use 1 to 64 letters, digits, "_" or "-"`,
      });
    }
    if (this.#entries.has(name)) {
      throw new ToolDefinitionError({ code: 'TOOL_NAME_DUPLICATE', toolName: name, message: `tool "${name}" is already registered` });
    }
    if (typeof tool.execute !== 'function') {
      throw new ToolDefinitionError({ code: 'TOOL_DEFINITION_INVALID', toolName: name, message: `tool "${name}" has no execute function` });
    }
    const { schema: parameters, validate } = normalizeParameterSchema(name, tool.parameters);
    const schema: ToolSchema = Object.freeze(tool.description === undefined ? { name, parameters } : { name, description: tool.description, parameters });
    const definition: ToolDefinition = parameters === tool.parameters ? tool : { ...tool, parameters, execute: tool.execute.bind(tool) };
    this.#entries.set(name, {
      definition,
      schema,
      validate,
      deferred: options.deferred === true,
      routingHints: Object.freeze([...(options.routingHints ?? [])]),
    });
  }

  registerAll(registrations: readonly ToolRegistration[]): void {
    for (const { tool, ...options } of registrations) this.register(tool, options);
  }

  /** Removes a tool (e.g. when its MCP server closes). Returns whether it existed. */
  unregister(name: string): boolean {
    this.#promoted.delete(name);
    return this.#entries.delete(name);
  }

  has(name: string): boolean {
    return this.#entries.has(name);
  }

  /** The registered definition, its parameters normalized to JSON Schema. */
  definition(name: string): ToolDefinition | undefined {
    return this.#entries.get(name)?.definition;
  }

  /** Unknown tools are not concurrency-safe. */
  isConcurrencySafe(name: string): boolean {
    return this.#entries.get(name)?.definition.concurrencySafe === true;
  }

  /** True when the model may call the tool now: not deferred, or promoted. */
  isVisible(name: string): boolean {
    const entry = this.#entries.get(name);
    return entry !== undefined && (!entry.deferred || this.#promoted.has(name));
  }

  /** The tools the model sees on the next call, sorted by name (stable bytes for prompt caches). */
  visibleTools(): readonly ToolSchema[] {
    return [...this.#entries.values()]
      .filter((entry) => this.isVisible(entry.schema.name))
      .map((entry) => entry.schema)
      .sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  }

  /** Every deferred tool, promoted or not, sorted by name. */
  deferredTools(): readonly DeferredToolInfo[] {
    return [...this.#entries.values()]
      .filter((entry) => entry.deferred)
      .map((entry) => ({
        name: entry.schema.name,
        description: entry.schema.description ?? '',
        routingHints: entry.routingHints,
        promoted: this.#promoted.has(entry.schema.name),
      }))
      .sort((left, right) => (left.name < right.name ? -1 : 1));
  }

  /** Makes deferred tools visible from the next `visibleTools()`. Returns the names newly promoted. */
  promote(names: Iterable<string>): readonly string[] {
    const promoted: string[] = [];
    for (const name of names) {
      const entry = this.#entries.get(name);
      if (entry?.deferred === true && !this.#promoted.has(name)) {
        this.#promoted.add(name);
        promoted.push(name);
      }
    }
    return promoted.sort();
  }

  /**
   * Runs one call. Never throws for the model's mistakes or a handler's
   * failure; an aborted signal gives a `TOOL_ABORTED` outcome.
   */
  async execute(call: ToolCall, options: ToolExecuteOptions): Promise<ToolOutcome> {
    const signal = options.signal ?? new AbortController().signal;
    const prepared = this.#prepare(call, options.contextId, signal);
    if ('outcome' in prepared) return prepared.outcome;
    const { entry, input } = prepared;
    try {
      const outcome: unknown = await entry.definition.execute(input, { contextId: options.contextId, toolCallId: call.id, signal });
      if (typeof outcome !== 'object' || outcome === null || typeof (outcome as ToolOutcome).content !== 'string') {
        return toolErrorOutcome({ code: 'TOOL_HANDLER_FAILED', tool: call.name, message: `tool "${call.name}" returned no result with text content` });
      }
      return outcome as ToolOutcome;
    } catch (thrown) {
      if (signal.aborted) return abortedOutcome(call.name);
      return toolErrorOutcome({ code: 'TOOL_HANDLER_FAILED', tool: call.name, message: `tool "${call.name}" failed: ${describeThrown(thrown)}` });
    }
  }

  /**
   * Runs one assistant turn's calls: consecutive concurrency-safe calls run
   * together, every other call alone, in the order the model declared them.
   * Outcomes come back in call order.
   */
  async executeBatch(calls: readonly ToolCall[], options: ToolExecuteOptions): Promise<readonly ToolOutcome[]> {
    const outcomes: ToolOutcome[] = [];
    let index = 0;
    while (index < calls.length) {
      let end = index + 1;
      if (this.isConcurrencySafe(calls[index]!.name)) {
        while (end < calls.length && this.isConcurrencySafe(calls[end]!.name)) end += 1;
      }
      outcomes.push(...(await Promise.all(calls.slice(index, end).map((call) => this.execute(call, options)))));
      index = end;
    }
    return outcomes;
  }

  /** Everything before the handler, synchronous so that parallel calls meet the loop guard in declared order. */
  #prepare(call: ToolCall, contextId: string, signal: AbortSignal): { outcome: ToolOutcome } | { entry: Entry; input: JsonValue } {
    if (signal.aborted) return { outcome: abortedOutcome(call.name) };
    const entry = this.#entries.get(call.name);
    if (entry === undefined) return { outcome: this.#unknownOutcome(call.name) };
    if (!this.isVisible(call.name)) {
      return {
        outcome: toolErrorOutcome({
          code: 'TOOL_NOT_DISCOVERED',
          tool: call.name,
          message: `tool "${call.name}" is not available yet: discover it first with search_tools (for example {"names":[${JSON.stringify(call.name)}]}); it becomes callable from your next step`,
        }),
      };
    }
    const input = parseArguments(call.input);
    if (input === 'too-deep') {
      return {
        outcome: toolErrorOutcome({
          code: 'TOOL_ARGUMENTS_TOO_DEEP',
          tool: call.name,
          message: `the arguments for "${call.name}" are nested more than ${MAX_JSON_DEPTH} levels deep (or are too large); send flatter JSON matching the tool's parameter schema`,
        }),
      };
    }
    if (input === undefined) {
      return {
        outcome: toolErrorOutcome({
          code: 'TOOL_ARGUMENTS_NOT_JSON',
          tool: call.name,
          message: `the arguments for "${call.name}" are not a JSON object; send them as JSON matching the tool's parameter schema`,
          details: { received: truncate(String(call.input), 200) },
        }),
      };
    }
    const issues = entry.validate(input, { maxIssues: this.#maxValidationIssues });
    if (issues.length > 0) {
      const listed = issues.map((issue) => ({ path: issue.path === '' ? '/' : issue.path, message: issue.message }));
      return {
        outcome: toolErrorOutcome({
          code: 'TOOL_ARGUMENTS_INVALID',
          tool: call.name,
          message: `the arguments for "${call.name}" do not match its parameter schema: ${listed.map((issue) => `${issue.path} ${issue.message}`).join('; ')}`,
          details: { issues: listed },
        }),
      };
    }
    const count = this.#guard.observe(contextId, call.name, input);
    if (this.#guard.refuses(count)) {
      return {
        outcome: toolErrorOutcome({
          code: 'TOOL_CALL_REPEATED',
          tool: call.name,
          message: `"${call.name}" was called with identical arguments ${count} times in a row; this call was not run. Use the earlier result, change the arguments, or take a different step`,
          details: { repeated: count },
        }),
      };
    }
    return { entry, input };
  }

  #unknownOutcome(name: string): ToolOutcome {
    const visible = this.visibleTools().map((tool) => tool.name);
    const hasDeferred = [...this.#entries.values()].some((entry) => entry.deferred && !this.#promoted.has(entry.schema.name));
    return toolErrorOutcome({
      code: 'TOOL_UNKNOWN',
      tool: name,
      message: `there is no tool named "${name}"${hasDeferred ? '; more tools can be discovered with search_tools' : ''}`,
      details: { availableTools: visible },
    });
  }
}

/**
 * The object the handler receives. A string is parsed as JSON (some
 * transports leave arguments unparsed); empty text and null mean no
 * arguments. Undefined when the text is not a JSON object; `too-deep` when
 * it is past what a canonical history holds (`MAX_JSON_DEPTH` levels, or
 * too many nodes), which no handler and no schema check is given.
 */
function parseArguments(input: JsonValue | undefined): JsonValue | 'too-deep' | undefined {
  if (input === null || input === undefined) return {};
  let parsed: unknown = input;
  if (typeof input === 'string') {
    if (input.trim() === '') return {};
    try {
      parsed = JSON.parse(input);
    } catch {
      return undefined;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  }
  try {
    return checkJsonValue(parsed, 'arguments');
  } catch (error) {
    if (ContextInputError.isInstance(error) && (error.code === 'CONTEXT_JSON_TOO_DEEP' || error.code === 'CONTEXT_JSON_TOO_LARGE')) return 'too-deep';
    return undefined;
  }
}

function abortedOutcome(name: string): ToolOutcome {
  return toolErrorOutcome({ code: 'TOOL_ABORTED', tool: name, message: `the call to "${name}" was aborted` });
}

function truncate(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars)}…`;
}
