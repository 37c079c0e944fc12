// @strata/openai-agents: Strata inside an OpenAI Agents SDK run (callModelInputFilter, read_tool_output).

// The adapter
export { createStrataOpenAIAgents } from './strata-openai-agents.js';
export type { StrataOpenAIAgents, StrataOpenAIAgentsOptions } from './strata-openai-agents.js';

// Item conversion (unchanged items go back as the run's own objects)
export { importAgentItems, toAgentItems } from './agents-history.js';
