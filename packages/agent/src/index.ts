// The executor seam
export { createAgentRun, type AgentProfile, type AgentBindings, type AgentRunInput, type AgentRun, type AgentVersionRecord, type SkillReference } from './create-agent-run.js';
export { createDefaultBindings, type DefaultBindings, type DefaultBindingsOptions } from './default-bindings.js';
export { MODEL_SETTING_NAMES, resolveModelSettings, type ModelSettings, type ModelSettingsOptions } from './model-settings.js';
export type { ProfileSections } from './profile-sections.js';
export type { RoutingHint } from './routing-hints.js';

// What a run reports
export type { AgentRunResult } from './native-agent.js';
export type { AgentEvent, AgentStopReason } from './agent-events.js';
export { DEFAULT_MAX_TURNS, MAX_REPEATED_CALL_REFUSALS, MAX_TOOL_CALLS_PER_STEP, turnsLeft } from './stop-conditions.js';

// State lanes and plans
export { LANE_NAMES, type LaneName, type LaneEntry, type LaneUpdate, type LaneReducer } from './lanes/run-lanes.js';
export { inputLaneReducer } from './lanes/lane-reducers.js';
export { createUpdatePlanTool, PLAN_ITEM_STATUSES, type PlanItem, type PlanItemStatus } from './lanes/plan-tool.js';

// Scopes: sub-agents and reviewers
export { createDelegateTool, type DelegateToolOptions, type SubagentRequest, type SubagentResult } from './scopes/delegate-tool.js';
export { createReviewTool, REVIEW_VERDICTS, type ReviewToolOptions, type ReviewVerdict } from './scopes/review-tool.js';
export { DELEGATE_TOOL_NAME, REVIEW_TOOL_NAME } from './lanes/lane-reducers.js';

// Timeouts
export { RunTimeout } from './run-deadline.js';
export type { Timers } from '@strata/context';
export { untilAborted } from '@strata/context';

// Errors
export { StepRefusedError } from './errors/step-refused-error.js';

// The blackboard's worker model over a model client
export { workerModelFromClient } from './worker-model-adapter.js';


// Telemetry (OpenTelemetry, GenAI semantic conventions; content off by default)
export { createAgentTelemetry, type AgentTelemetry, type AgentTelemetryOptions } from './telemetry/agent-telemetry.js';
export { OTEL_SDK_PACKAGES, OTLP_TRACE_EXPORTERS, otlpTracerFromEnvironment, otlpTracesEnabled, type OtlpTraceProtocol, type OtlpTracer, type OtlpTracerOptions } from './telemetry/otlp-tracer.js';
