import type { ToolOutputStore } from '@strata/context';
import { createReadSkillTool } from '../skills/read-skill-tool.js';
import type { SkillCatalog } from '../skills/load-skills.js';
import { createReadToolOutputTool } from '../tool-output/read-tool-output-tool.js';
import { createSearchToolsTool } from './search-tools-tool.js';
import type { ToolRegistry } from './tool-registry.js';

export interface StandardToolsOptions {
  readonly registry: ToolRegistry;
  /** Registers `read_tool_output` over this store. */
  readonly outputStore?: ToolOutputStore;
  /** Registers `read_skill` over this catalog. */
  readonly skills?: SkillCatalog;
  /** Registers `search_tools`. Default: whether any deferred tool is registered now, so call this after MCP servers are registered. */
  readonly discovery?: boolean;
  /** Bound of each `read_tool_output` answer. Default 8,000 chars. */
  readonly readToolOutputMaxChars?: number;
}

/** Registers the runtime's own tools: discovery, the way back to stored outputs, and skill loading. Returns their names. */
export function registerStandardTools(options: StandardToolsOptions): readonly string[] {
  const { registry } = options;
  const registered: string[] = [];
  const add = (tool: Parameters<ToolRegistry['register']>[0]): void => {
    registry.register(tool);
    registered.push(tool.name);
  };
  if (options.discovery ?? registry.deferredTools().length > 0) add(createSearchToolsTool({ registry }));
  if (options.outputStore !== undefined) {
    add(createReadToolOutputTool({ store: options.outputStore, maxChars: options.readToolOutputMaxChars }));
  }
  if (options.skills !== undefined && options.skills.skills.length > 0) add(createReadSkillTool({ catalog: options.skills }));
  return registered.sort();
}
