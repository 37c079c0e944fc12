import type { ToolDefinition, ToolOutcome } from '@strata/context';
import { toolErrorOutcome } from '../tool-error.js';
import { searchDeferredTools } from './tool-search.js';
import type { ToolRegistry } from './tool-registry.js';

export const SEARCH_TOOLS_NAME = 'search_tools';

export interface SearchToolsOptions {
  readonly registry: ToolRegistry;
  /** Tools promoted per search at most. Default 5. */
  readonly maxResults?: number;
}

const DEFAULTS = Object.freeze({ maxResults: 5 });

/**
 * The discovery tool: searches the deferred tools by name, description and
 * routing hints (or takes exact names), promotes the matches, and says they
 * are callable from the next step.
 */
export function createSearchToolsTool(options: SearchToolsOptions): ToolDefinition {
  const { registry, maxResults = DEFAULTS.maxResults } = options;
  return {
    name: SEARCH_TOOLS_NAME,
    description:
      'Find more tools. Some tools (for example those of MCP servers) are hidden until discovered. Search by words in their name, server or purpose, or give exact names; the tools found become callable from your next step.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, description: 'Words describing the tool you need, e.g. "read file" or a server name.' },
        names: { type: 'array', items: { type: 'string' }, minItems: 1, description: 'Exact tool names to make available.' },
      },
      additionalProperties: false,
    },
    concurrencySafe: false,
    execute(input): ToolOutcome {
      const { query, names } = input as { query?: string; names?: string[] };
      if (query === undefined && names === undefined) {
        return toolErrorOutcome({ code: 'TOOL_ARGUMENTS_INVALID', tool: SEARCH_TOOLS_NAME, message: 'give a "query" or a list of exact "names"' });
      }
      const deferred = registry.deferredTools();
      const byName = new Map(deferred.map((tool) => [tool.name, tool]));
      const exact = (names ?? []).filter((name) => byName.has(name));
      const unknownNames = (names ?? []).filter((name) => !byName.has(name));
      const searched = query === undefined ? [] : searchDeferredTools(deferred, query).map((match) => match.name);
      const found = [...new Set([...exact, ...searched])].slice(0, Math.max(maxResults, exact.length));
      registry.promote(found);
      const lines = found.map((name) => {
        const description = byName.get(name)?.description ?? '';
        return `- ${name}${description === '' ? '' : `: ${description}`}`;
      });
      const head =
        found.length === 0
          ? `No hidden tool matches${query === undefined ? '' : ` ${JSON.stringify(query)}`}; try other words.`
          : `${found.length} tool${found.length === 1 ? '' : 's'} available from your next step:`;
      const tail = unknownNames.length === 0 ? [] : [`Unknown names: ${unknownNames.join(', ')}.`];
      return { content: [head, ...lines, ...tail].join('\n'), data: { promoted: found, unknownNames } };
    },
  };
}
