import type { ContextContributorFactory, SystemSection } from '@strata/context';
import { SEARCH_TOOLS_NAME } from './search-tools-tool.js';
import type { ToolRegistry } from './tool-registry.js';

export const DEFERRED_TOOLS_SECTION_ID = 'tools.deferred';

/** The longest one-line description a deferred tool gets in the section. */
export const DEFERRED_TOOL_LINE_CHARS = 120;

/**
 * A `capabilities` section naming every deferred tool (promoted or not) with
 * the first line of its description, so the model knows what `search_tools`
 * can make available. Sorted by name; promotion does not change it, so its
 * bytes stay stable for prompt caches (a server's `tools/list_changed` does).
 * It is not protected: the budget truncates it like any other section.
 * Undefined when no tool is deferred.
 */
export function deferredToolsSection(registry: ToolRegistry): SystemSection | undefined {
  const tools = registry.deferredTools();
  if (tools.length === 0) return undefined;
  const lines = tools.map((tool) => {
    const line = tool.description.split('\n')[0]!.trim();
    const shown = line.length <= DEFERRED_TOOL_LINE_CHARS ? line : `${line.slice(0, DEFERRED_TOOL_LINE_CHARS)}…`;
    return shown === '' ? `- ${tool.name}` : `- ${tool.name}: ${shown}`;
  });
  return {
    id: DEFERRED_TOOLS_SECTION_ID,
    slot: 'capabilities',
    title: 'More tools',
    content: `These tools exist but are not loaded. To use one, first call ${SEARCH_TOOLS_NAME} with words from its purpose or with its exact name in "names"; it becomes callable from your next step.\n${lines.join('\n')}`,
  };
}

/**
 * The deferred-tools section as a contributor, read from the registry at
 * every model call (so tools an MCP server adds later appear from the next
 * call). Contributes nothing when no tool is deferred.
 */
export function deferredToolsContributorFactory(options: { registry: ToolRegistry }): ContextContributorFactory {
  return {
    id: 'strata.tools.deferred',
    create: ({ scope }) => ({
      id: 'deferred-tools',
      scopes: [scope],
      contribute: () => {
        const section = deferredToolsSection(options.registry);
        return section ? { sections: [section] } : {};
      },
    }),
  };
}
