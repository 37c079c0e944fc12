import type { ContextContribution, ContextContributorFactory, ContributedMessage, SystemSection } from '@strata/context';
import { SEARCH_TOOLS_NAME } from './search-tools-tool.js';
import type { ToolRegistry } from './tool-registry.js';

export const DEFERRED_TOOLS_SECTION_ID = 'tools.deferred';

/** The longest one-line description a deferred tool gets in the descriptions message. */
export const DEFERRED_TOOL_LINE_CHARS = 120;

/**
 * What the model is told of the deferred tools (promoted or not), sorted by
 * name: a `capabilities` section naming each one, so it knows what
 * `search_tools` can make available, and a data_only message (same id) with
 * the first line of each description. A description is the tool's
 * provider's text (an MCP server's, say), so it never enters the system
 * prompt; names do (the registry allows only letters, digits, `_` and `-`).
 * Promotion does not change either, so their bytes stay stable for prompt
 * caches (a server's `tools/list_changed` does). Neither is protected: the
 * budget truncates them like any other section and message. Empty when no
 * tool is deferred.
 */
export function deferredToolsContribution(registry: ToolRegistry): ContextContribution {
  const tools = registry.deferredTools();
  if (tools.length === 0) return {};
  const lines = tools.map((tool) => {
    const line = tool.description.split('\n')[0]!.trim();
    const shown = line.length <= DEFERRED_TOOL_LINE_CHARS ? line : `${line.slice(0, DEFERRED_TOOL_LINE_CHARS)}…`;
    return shown === '' ? `- ${tool.name}` : `- ${tool.name}: ${shown}`;
  });
  const section: SystemSection = {
    id: DEFERRED_TOOLS_SECTION_ID,
    slot: 'capabilities',
    title: 'More tools',
    content: `These tools exist but are not loaded. To use one, first call ${SEARCH_TOOLS_NAME} with words from its purpose or with its exact name in "names"; it becomes callable from your next step. What each one does, as its provider describes it, is in the data message "${DEFERRED_TOOLS_SECTION_ID}".\n${tools.map((tool) => `- ${tool.name}`).join('\n')}`,
  };
  const descriptions: ContributedMessage = { id: DEFERRED_TOOLS_SECTION_ID, role: 'user', content: `The deferred tools, each with the first line of its provider's description:\n${lines.join('\n')}` };
  return { sections: [section], messages: [descriptions] };
}

/**
 * The deferred tools as a contributor, read from the registry at every
 * model call (so tools an MCP server adds later appear from the next call).
 * Contributes nothing when no tool is deferred.
 */
export function deferredToolsContributorFactory(options: { registry: ToolRegistry }): ContextContributorFactory {
  return {
    id: 'strata.tools.deferred',
    create: ({ scope }) => ({
      id: 'deferred-tools',
      scopes: [scope],
      contribute: () => deferredToolsContribution(options.registry),
    }),
  };
}
