import type { JsonValue, ToolDefinition, ToolOutcome } from '@strata/context';
import { authorLabel, type BlackboardStore } from './blackboard-store.js';
import { isValidTagPattern } from './tag-pattern.js';

export interface ReadBlackboardToolOptions {
  readonly store: BlackboardStore;
  /** Longest content shown per entry, in code points. Default 2,000. */
  readonly maxEntryChars?: number;
  /** Most entries listed (the newest). Default 50. */
  readonly maxEntries?: number;
}

export const READ_BLACKBOARD_TOOL_NAME = 'read_blackboard';

const DEFAULTS = Object.freeze({ maxEntryChars: 2_000, maxEntries: 50 });

/**
 * `read_blackboard(patterns)`: lets the agent look before choosing the next
 * `run_worker`. Its result lives only in the agent's messages; worker
 * prompts are rebuilt from the blackboard by contract and never see it.
 */
export function createReadBlackboardTool(options: ReadBlackboardToolOptions): ToolDefinition {
  const { store } = options;
  const maxEntryChars = options.maxEntryChars ?? DEFAULTS.maxEntryChars;
  const maxEntries = options.maxEntries ?? DEFAULTS.maxEntries;
  return {
    name: READ_BLACKBOARD_TOOL_NAME,
    description: 'List blackboard entries whose tag matches any pattern (exact tag, "prefix.*", or "**"), oldest first.',
    parameters: {
      type: 'object',
      properties: { patterns: { type: 'array', items: { type: 'string' }, minItems: 1, description: 'Tag patterns.' } },
      required: ['patterns'],
      additionalProperties: false,
    },
    concurrencySafe: true,
    async execute(input: JsonValue, context): Promise<ToolOutcome> {
      const patterns = typeof input === 'object' && input !== null && !Array.isArray(input) ? input['patterns'] : undefined;
      if (!Array.isArray(patterns) || patterns.length === 0 || !patterns.every((pattern) => typeof pattern === 'string')) {
        return { content: 'read_blackboard needs "patterns", a non-empty list of tag patterns', isError: true };
      }
      const invalid = (patterns as string[]).filter((pattern) => !isValidTagPattern(pattern));
      if (invalid.length > 0) return { content: `not tag patterns: ${invalid.map((pattern) => JSON.stringify(pattern)).join(', ')}`, isError: true };
      const entries = await store.query(patterns as string[], { signal: context.signal });
      if (entries.length === 0) return { content: `no entries match ${(patterns as string[]).join(', ')}` };
      const shown = entries.slice(-maxEntries);
      const lines = shown.map((entry) => {
        const characters = Array.from(entry.content);
        const content = characters.length > maxEntryChars ? `${characters.slice(0, maxEntryChars).join('')}… [${characters.length - maxEntryChars} more characters]` : entry.content;
        const role = entry.role === undefined ? '' : ` [${entry.role}]`;
        return `#${entry.revision} ${entry.tag}${role} by ${authorLabel(entry.author)} at ${entry.createdAt}\n${content}`;
      });
      const skipped = entries.length - shown.length;
      return { content: [...(skipped > 0 ? [`(${skipped} older entries not shown)`] : []), ...lines].join('\n\n') };
    },
  };
}
