/**
 * @strata/tools: the tool table of a Strata run.
 *
 * A `ToolRegistry` holds a run's tools (JSON Schema, zod 4 or any Standard
 * Schema), validates each call's arguments before its handler, and turns
 * every failure the model can fix into a structured error outcome. Deferred
 * tools wait for `search_tools`; MCP servers contribute deferred tools;
 * skills and stored tool outputs are read back through their own tools.
 */

// Errors
export { McpConnectionError, type McpConnectionErrorCode } from './errors/mcp-connection-error.js';
export { SkillFormatError, type SkillFormatErrorCode } from './errors/skill-format-error.js';
export { ToolDefinitionError, type ToolDefinitionErrorCode } from './errors/tool-definition-error.js';

// Tool outcomes
export { toolErrorCodeOf, toolErrorOutcome, type ToolErrorCode, type ToolErrorOptions } from './tool-error.js';

// Registry and tool definitions
export {
  ToolRegistry,
  type DeferredToolInfo,
  type ToolExecuteOptions,
  type ToolRegistration,
  type ToolRegistrationOptions,
  type ToolRegistryOptions,
} from './registry/tool-registry.js';
export { defineSchemaTool, type SchemaToolOptions } from './registry/schema-tool.js';
export type { StandardSchemaOutput, StandardSchemaWithJsonSchema } from './registry/standard-schema.js';
export { registerStandardTools, type StandardToolsOptions } from './registry/standard-tools.js';
export { DEFERRED_TOOLS_SECTION_ID, deferredToolsContribution, deferredToolsContributorFactory } from './registry/deferred-tools-section.js';

// MCP
export {
  connectMcpServer,
  type ConnectMcpServerOptions,
  type McpServerConfig,
  type McpServerConnection,
  type McpToolsChange,
  type McpTransportConfig,
} from './mcp/mcp-connection.js';
export { neutraliseControlMarkers } from './mcp/control-markers.js';

// Stored tool outputs
export type { ReadToolOutputArguments } from './tool-output/read-arguments.js';
export { nextArgumentsOf } from './tool-output/read-tool-output.js';
export { createReadToolOutputTool, type ReadToolOutputToolOptions } from './tool-output/read-tool-output-tool.js';
export { gatherToolOutput, hostToolResultStore, INLINE_TOOL_OUTPUT_MAX_CHARS, storeToolResult, type StoreToolResultOptions } from './tool-output/store-tool-result.js';

// Skills
export { loadSkills, type LoadSkillsOptions, type SkillCatalog, type SkillEntry } from './skills/load-skills.js';
export {
  SKILL_CATALOG_SECTION_ID,
  skillCatalogContributorFactory,
  skillCatalogSection,
  type SkillCatalogContributorOptions,
  type SkillCatalogSectionOptions,
} from './skills/skill-catalog-section.js';
export type { SkillReference } from './skills/skill-revision.js';
export { READ_SKILL_NAME, skillReferenceFromContent } from './skills/read-skill-tool.js';
