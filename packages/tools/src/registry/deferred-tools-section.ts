import type { SystemSection } from '@strata/context';
import { SEARCH_TOOLS_NAME } from './search-tools-tool.js';
import type { ToolRegistry } from './tool-registry.js';

export const DEFERRED_TOOLS_SECTION_ID = 'tools.deferred';

/**
 * A `capabilities` section naming every deferred tool (promoted or not), so
 * the model knows what `search_tools` can make available. Names only, sorted;
 * promotion does not change it, so its bytes stay stable for prompt caches.
 * Undefined when no tool is deferred.
 */
export function deferredToolsSection(registry: ToolRegistry): SystemSection | undefined {
  const names = registry.deferredTools().map((tool) => tool.name);
  if (names.length === 0) return undefined;
  return {
    id: DEFERRED_TOOLS_SECTION_ID,
    slot: 'capabilities',
    title: 'More tools',
    content: `These tools exist but are not loaded. To use one, first call ${SEARCH_TOOLS_NAME} with words from its purpose or with its exact name in "names"; it becomes callable from your next step.\n${names.join('\n')}`,
  };
}
