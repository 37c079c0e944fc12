export * from './agent-events.js';
export * from './agent-run-state.js';
export * from './run-deadline.js';
export * from './tool-dispatch.js';
export * from './model-turn.js';
export * from './skill-reference-contributor.js';
export * from './native-agent.js';
export * from './create-agent-run.js';
