// @strata/langchain: Strata inside a LangChain.js 1.x createAgent (model-call middleware, read_tool_output).

// The adapter
export { createStrataLangChain } from './strata-langchain.js';
export type { StrataLangChain, StrataLangChainOptions } from './strata-langchain.js';

// Message conversion (unchanged messages go back as the agent's own objects)
export { importLangChainMessages, toLangChainMessage } from './langchain-history.js';
