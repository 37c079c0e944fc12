import { DBOSClient, type GetWorkflowsInput, type WorkflowStatus } from '@dbos-inc/dbos-sdk';
import { APPROVAL_TOPIC, type ApprovalReply } from './approval-tool.js';
import { RUN_QUEUE_NAME, RUN_WORKFLOW_NAME, TURN_WORKFLOW_NAME, type RunOutcome, type RunRequest } from './run-workflows.js';
import { resolveServiceDatabase, SERVICE_APPLICATION_NAME, type ServiceDatabase } from './service-database.js';

export const RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type RunStatusName = (typeof RUN_STATUSES)[number];

/** A run as the API reports it. */
export interface RunSummary {
  readonly id: string;
  readonly status: RunStatusName;
  readonly profile?: string;
  readonly model?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly executorId?: string;
  readonly outcome?: RunOutcome;
  readonly error?: string;
}

/** What the API needs of the run queue; `openRunDirectory` implements it over DBOS. */
export interface RunDirectory {
  enqueue(request: RunRequest): Promise<void>;
  get(runId: string): Promise<RunSummary | undefined>;
  list(options: { readonly status?: RunStatusName; readonly limit: number }): Promise<RunSummary[]>;
  /** Marks the run and its turns CANCELLED; the worker's step in progress is aborted at its next cancel check. */
  cancel(runId: string): Promise<void>;
  /** Delivers a reply to the turn that waits; `not-waiting` when no turn of the run is in progress. */
  send(runId: string, reply: ApprovalReply): Promise<'sent' | 'not-waiting'>;
  close(): Promise<void>;
}

const STATUS_OF: Readonly<Record<string, RunStatusName>> = {
  ENQUEUED: 'queued',
  DELAYED: 'queued',
  PENDING: 'running',
  SUCCESS: 'succeeded',
  ERROR: 'failed',
  MAX_RECOVERY_ATTEMPTS_EXCEEDED: 'failed',
  CANCELLED: 'cancelled',
};

const DBOS_STATUSES_OF: Readonly<Record<RunStatusName, string[]>> = {
  queued: ['ENQUEUED', 'DELAYED'],
  running: ['PENDING'],
  succeeded: ['SUCCESS'],
  failed: ['ERROR', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED'],
  cancelled: ['CANCELLED'],
};

/** The run queue over a DBOS client (no `DBOS.launch`: the API process runs no workflows). */
export async function openRunDirectory(options: { readonly database: ServiceDatabase }): Promise<RunDirectory> {
  const database = resolveServiceDatabase(options.database);
  const client = await DBOSClient.create({ systemDatabaseUrl: database.url, systemDatabaseSchemaName: database.systemSchema, applicationName: SERVICE_APPLICATION_NAME });
  return {
    async enqueue(request) {
      await client.enqueue({ queueName: RUN_QUEUE_NAME, workflowName: RUN_WORKFLOW_NAME, workflowID: request.runId }, request);
    },
    async get(runId) {
      const status = await client.getWorkflow(runId);
      return status === undefined || status.workflowName !== RUN_WORKFLOW_NAME ? undefined : summary(status);
    },
    async list({ status, limit }) {
      const rows = await client.listWorkflows({
        workflowName: RUN_WORKFLOW_NAME,
        status: status === undefined ? undefined : (DBOS_STATUSES_OF[status] as GetWorkflowsInput['status']),
        limit,
        sortDesc: true,
        loadInput: true,
        loadOutput: true,
      });
      return rows.map(summary);
    },
    async cancel(runId) {
      await client.cancelWorkflow(runId, { cancelChildren: true });
    },
    async send(runId, reply) {
      const turns = await client.listWorkflows({ workflow_id_prefix: `${runId}/turn-`, workflowName: TURN_WORKFLOW_NAME, status: 'PENDING', sortDesc: true, limit: 1 });
      const waiting = turns[0];
      if (waiting === undefined) return 'not-waiting';
      await client.send(waiting.workflowID, reply, APPROVAL_TOPIC);
      return 'sent';
    },
    close: () => client.destroy(),
  };
}

function summary(status: WorkflowStatus): RunSummary {
  const request = (status.input as RunRequest[] | undefined)?.[0];
  return {
    id: status.workflowID,
    status: STATUS_OF[status.status] ?? 'running',
    profile: request?.profile,
    model: request?.model,
    createdAt: new Date(status.createdAt).toISOString(),
    updatedAt: new Date(status.updatedAt ?? status.createdAt).toISOString(),
    executorId: status.executorId,
    outcome: status.status === 'SUCCESS' ? (status.output as RunOutcome) : undefined,
    error: status.error === undefined || status.error === null ? undefined : String((status.error as { message?: unknown }).message ?? status.error),
  };
}
