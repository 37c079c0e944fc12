import type { AgentProfile } from '@strata/agent';
import type { ContextConfiguration, JsonValue, TokenEstimator, ToolExecutionContext, ToolOutcome, ToolSchema } from '@strata/context';
import type { ModelClient } from '@strata/model';

/** What a service tool's handler receives besides the call: the key that makes its side effect happen once. */
export interface ServiceToolContext extends ToolExecutionContext {
  /**
   * `<run id>/<call id>`: the same for every execution of this call, also
   * when the step runs again because its worker died before recording it.
   * A handler with a side effect uses it as its idempotency key.
   */
  readonly idempotencyKey: string;
}

/** A tool of a service profile. Each call is one DBOS step named `tool:<call id>`; its outcome is recorded. */
export interface ServiceTool extends ToolSchema {
  readonly concurrencySafe?: boolean;
  execute(input: JsonValue, context: ServiceToolContext): Promise<ToolOutcome> | ToolOutcome;
}

/** A profile runs can name in `POST /runs`. */
export interface ServiceProfile {
  readonly profile: AgentProfile;
  readonly tools?: readonly ServiceTool[];
  /** Adds `request_approval`: the run waits (durably, deadline paused) for `POST /runs/:id/messages`. Default false. */
  readonly approvals?: boolean;
  /**
   * Adds `delegate`: a sub-agent under the catalog's profile of this name
   * (scope `subagent`, its own tools; no approvals, which only a run's own
   * turns receive). It runs as a durable workflow of its own
   * (`strata.subagent`, id `<context id>/subagent/<call id>`) that the turn
   * awaits with its run deadline paused; a restart neither loses nor repeats it.
   */
  readonly subagent?: string;
}

/**
 * What a worker can run: named profiles, models by name, and the context
 * configuration. The worker loads it (a module given to `strata worker`);
 * the API checks requests against its names, so an unknown profile is
 * refused before anything is enqueued.
 */
export interface ServiceCatalog {
  readonly profiles: Readonly<Record<string, ServiceProfile>>;
  /** Model names `POST /runs` accepts; the first is the default. */
  readonly models: readonly string[];
  /** The client for a model name; called once per model turn step, inside the worker. */
  model(name: string): ModelClient;
  readonly configuration: ContextConfiguration;
  /**
   * How a model's tokens are counted (its family's conservative estimate, an
   * exact counter where one is configured): what `resolveModelSettings`
   * gives. Without it, a run counts by the default estimator.
   */
  counting?(name: string): { readonly estimator?: TokenEstimator; readonly exactEstimator?: TokenEstimator };
}
