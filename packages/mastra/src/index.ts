// @strata/mastra: Strata inside a Mastra 0.24 agent's loop (prepareStep, read_tool_output as a Mastra tool).

// The adapter
export { createStrataMastra } from './strata-mastra.js';
export type { StrataMastra, StrataMastraOptions, MastraPrepareStepArgs, MastraModelMessage, MastraFinishEvent, MastraLanguageModel, MastraToolLike } from './strata-mastra.js';
