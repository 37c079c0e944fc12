import type { JsonValue, ToolDefinition, ToolOutcome, ToolOutputStore } from '@strata/context';
import { toolErrorOutcome } from '../tool-error.js';
import type { ReadToolOutputArguments } from './read-arguments.js';
import { READ_TOOL_OUTPUT_DEFAULTS, readToolOutput } from './read-tool-output.js';
import { searchContextOutputs } from './search-context-outputs.js';

const READ_TOOL_OUTPUT_NAME = 'read_tool_output';

export interface ReadToolOutputToolOptions {
  readonly store: ToolOutputStore;
  /** Bound of every answer, header included, in UTF-16 code units. Default 8,000. */
  readonly maxChars?: number;
  /** Query mode: lines of context around each match. Default 2. */
  readonly contextLines?: number;
  /** Only outputs stored for the calling context are readable. Default true. */
  readonly sameContextOnly?: boolean;
}

const DEFAULTS = Object.freeze({ ...READ_TOOL_OUTPUT_DEFAULTS, sameContextOnly: true });

/** The JSON Schema of `read_tool_output`'s arguments. */
const READ_TOOL_OUTPUT_PARAMETERS = Object.freeze({
  type: 'object',
  properties: {
    ref: { type: 'string', minLength: 1, description: 'The stored output reference (outputRef id) shown with an earlier tool result. Leave it out, with a query, to search every stored output of this conversation.' },
    query: { type: 'string', minLength: 1, description: 'Literal text to find; returns matching lines with line numbers and a little context.' },
    ignoreCase: { type: 'boolean', description: 'With query: match regardless of letter case.' },
    fromLine: { type: 'integer', minimum: 1, description: 'With query: search from this line (given in the previous answer).' },
    fromChar: { type: 'integer', minimum: 0, description: 'With query: search from this character offset (given in the previous answer).' },
    lines: {
      type: 'object',
      description: 'A 1-based line range; end is inclusive and optional.',
      properties: { start: { type: 'integer', minimum: 1 }, end: { type: 'integer', minimum: 1 } },
      required: ['start'],
      additionalProperties: false,
    },
    chars: {
      type: 'object',
      description: 'A character range, only for compact JSON or other over-wide lines; end is exclusive and optional.',
      properties: { start: { type: 'integer', minimum: 0 }, end: { type: 'integer', minimum: 1 } },
      required: ['start'],
      additionalProperties: false,
    },
  },
  // Not `anyOf` (ref or query): providers refuse a top-level anyOf; execute checks it.
  additionalProperties: false,
});

/**
 * `read_tool_output` over a `ToolOutputStore`: the bounded way back to a
 * stored result. Give a query, or a line range (or, for over-wide lines, a
 * character range); every answer states the exact arguments for the next part.
 * An unknown reference is a structured `TOOL_OUTPUT_NOT_FOUND` error.
 */
export function createReadToolOutputTool(options: ReadToolOutputToolOptions): ToolDefinition {
  const { store, maxChars = DEFAULTS.maxChars, contextLines = DEFAULTS.contextLines, sameContextOnly = DEFAULTS.sameContextOnly } = options;
  const search = async (request: Partial<ReadToolOutputArguments>, contextId: string, signal: AbortSignal): Promise<ToolOutcome> => {
    const invalid = (message: string) => toolErrorOutcome({ code: 'TOOL_OUTPUT_ARGUMENTS_INVALID', tool: READ_TOOL_OUTPUT_NAME, message });
    if (request.query === undefined) return invalid('give a ref (an outputRef id shown with an earlier tool result), or a query to search every stored output');
    const extra = (['lines', 'chars', 'fromLine', 'fromChar'] as const).filter((key) => request[key] !== undefined);
    if (extra.length > 0) return invalid(`${extra.join(' and ')} need a ref; a search without one takes only query and ignoreCase`);
    const answer = await searchContextOutputs({ store, contextId, query: request.query, ignoreCase: request.ignoreCase === true, maxChars, contextLines, signal });
    if (!answer.ok) return invalid(answer.message);
    return { content: answer.content, data: { mode: 'search', query: request.query, refs: [...answer.shown], more: [...answer.more], searched: answer.searched } };
  };
  return {
    name: READ_TOOL_OUTPUT_NAME,
    description:
      'Read a stored tool output by its reference. First search it with a literal query, or read a line range; use a character range only for compact JSON or other very long lines. Without a reference, a query searches every stored output of this conversation, also those no longer shown. Each answer is bounded and its first line gives the exact arguments for the next part.',
    parameters: READ_TOOL_OUTPUT_PARAMETERS,
    concurrencySafe: true,
    async execute(input, { contextId, signal }): Promise<ToolOutcome> {
      const request = input as unknown as Partial<ReadToolOutputArguments>;
      signal.throwIfAborted();
      if (request.ref === undefined) return search(request, contextId, signal);
      const stored = await store.get(request.ref);
      if (stored === undefined || (sameContextOnly && stored.contextId !== contextId)) {
        return toolErrorOutcome({
          code: 'TOOL_OUTPUT_NOT_FOUND',
          tool: READ_TOOL_OUTPUT_NAME,
          message: `no stored tool output has the reference ${JSON.stringify(request.ref)}; use a ref shown with an earlier tool result`,
        });
      }
      const answer = readToolOutput({ body: stored.body, arguments: request as ReadToolOutputArguments, maxChars, contextLines });
      if (!answer.ok) return toolErrorOutcome({ code: answer.code, tool: READ_TOOL_OUTPUT_NAME, message: answer.message });
      return {
        content: answer.content,
        data: {
          ref: request.ref,
          mode: answer.mode,
          ...(answer.slice === undefined ? {} : { slice: { start: answer.slice.start, end: answer.slice.end } }),
          next: answer.next === undefined ? null : (answer.next as unknown as JsonValue),
        },
      };
    },
  };
}
