// The executor seam
export { createAgentRun, type AgentProfile, type AgentBindings, type AgentRunInput, type AgentRun, type AgentVersionRecord } from './create-agent-run.js';
export { createDefaultBindings, resolveExecutor, EXECUTORS, type DefaultBindings, type DefaultBindingsOptions } from './default-bindings.js';
export type { ProfileSections } from './profile-sections.js';

// The loop and its state
export { NativeAgent, type NativeAgentOptions, type AgentRunResult } from './native-agent.js';
export { AgentRunState, FOREIGN_AFTER_STEP_REASON } from './agent-run-state.js';
export type { AgentEvent, AgentStopReason } from './agent-events.js';
export { runModelTurn, type ModelTurnOptions, type ModelTurnOutcome } from './model-turn.js';
export { dispatchToolCalls, type ToolDispatchOptions, type ToolDispatchOutcome } from './tool-dispatch.js';
export { MAX_TOOL_CALLS_PER_STEP } from './step-admission.js';

// Timeouts
export { RunDeadline, RunTimeout, type Timers } from './run-deadline.js';

// Errors
export { StepRefusedError } from './errors/step-refused-error.js';

// Contributors and adapters
export { profileSectionsFactory } from './profile-sections.js';
export { skillReferenceContributorFactory, type SkillReference } from './skill-reference-contributor.js';
export { workerModelFromClient } from './worker-model-adapter.js';

// Replay
export { replayTrajectory, modelCallIndexes, type ReplayOptions, type ReplayTurn, type ReplayResult } from './replay.js';
export { rawRequests, lastNMaskingRequests, clearToolUsesRequests, type BaselineTurn, type ClearToolUsesOptions } from './replay-baselines.js';

// Telemetry (OpenTelemetry, GenAI semantic conventions; content off by default)
export { createAgentTelemetry, type AgentTelemetry, type AgentTelemetryOptions } from './telemetry/agent-telemetry.js';
export { otlpTracerFromEnvironment, type OtlpTracer } from './telemetry/otlp-tracer.js';
