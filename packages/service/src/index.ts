// Errors
export { ServiceRequestError, type ServiceRequestErrorCode } from './errors/service-request-error.js';

// What workers run
export type { ServiceCatalog, ServiceProfile, ServiceTool, ServiceToolContext } from './service-catalog.js';
export { APPROVAL_TOOL_NAME, APPROVAL_TOPIC, APPROVAL_TIMEOUT_SECONDS, type ApprovalReply } from './approval-tool.js';

// The database
export {
  migrateService,
} from './migrate-service.js';
export {
  resolveServiceDatabase,
  serviceDatabaseFromEnvironment,
  SERVICE_APPLICATION_NAME,
  SERVICE_APPLICATION_VERSION,
  SERVICE_DATABASE_DEFAULTS,
  type ServiceDatabase,
} from './service-database.js';

// Runs as durable workflows
export { RUN_QUEUE_NAME, RUN_WORKFLOW_NAME, SUBAGENT_WORKFLOW_NAME, TURN_WORKFLOW_NAME, turnWorkflowId, type RunOutcome, type RunRequest } from './run-workflows.js';
export { startWorker, WORKER_CONCURRENCY, type Worker, type WorkerOptions } from './start-worker.js';
export { CancelWatch, CANCEL_POLL_MS, type CancelWatchOptions } from './cancel-watch.js';
export { RunLog, type RunLogEvent, type RunLogOptions, type RunLogPool } from './run-log.js';

// Worker slots on one machine
export { superviseWorkers, RESTART_DELAY_MS, type Supervisor, type SupervisorEvent, type SupervisorOptions } from './supervise-workers.js';

// The HTTP API
export { openRunDirectory, RUN_STATUSES, type RunDirectory, type RunStatusName, type RunSummary } from './run-directory.js';
export { createServiceApp, writeServiceFailure, EVENT_POLL_MS, MAX_BODY_BYTES, MAX_PROMPT_CHARS, type ServiceAppOptions, type ServiceFailure, type TraceViewer } from './service-app.js';
export { MAX_DISCARDED_BODY_BYTES } from './request-body.js';
export { MAX_RUN_ID_CHARS } from './request-input.js';
export { startServiceServer, type ServiceServer, type ServiceServerOptions } from './service-server.js';
