import type { JsonValue, ToolDefinition } from '@strata/context';
import { toolErrorOutcome } from '@strata/tools';
import { createAgentRun, type AgentBindings, type AgentProfile } from '../create-agent-run.js';
import { REVIEW_TOOL_NAME } from '../lanes/lane-reducers.js';
import { runHandleOf } from '../run-handle.js';

export const REVIEW_VERDICTS = ['approve', 'revise', 'reject'] as const;

/** What a reviewer run returns, and what the Review lane holds. */
export interface ReviewVerdict {
  readonly artifacts: readonly string[];
  readonly verdict: (typeof REVIEW_VERDICTS)[number];
  readonly summary: string;
  readonly issues: readonly string[];
}

export interface ReviewToolOptions {
  /** The reviewer: its own profile (run with scope `reviewer`) and bindings. */
  readonly profile: AgentProfile;
  readonly bindings: AgentBindings;
}

/**
 * The `review` tool: a reviewer run reads named artifacts of the calling
 * run's Artifact lane and returns a structured verdict, which comes back as
 * the tool result (JSON) and into the Review lane. Like `delegate`, it runs
 * in an external wait of the parent, under the parent's signal.
 */
export function createReviewTool(options: ReviewToolOptions): ToolDefinition {
  const profile: AgentProfile = { ...options.profile, scope: 'reviewer' };
  return {
    name: REVIEW_TOOL_NAME,
    description: 'Ask a reviewer to check named artifacts of this run. Returns a verdict (approve, revise or reject), a summary and issues.',
    parameters: {
      type: 'object',
      properties: {
        artifacts: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1, description: 'Names of artifacts to review.' },
        criteria: { type: 'string', description: 'What the reviewer should check.' },
      },
      required: ['artifacts'],
      additionalProperties: false,
    },
    concurrencySafe: false,
    async execute(input, context) {
      const { artifacts, criteria } = input as { artifacts: string[]; criteria?: string };
      const parent = runHandleOf(context.signal);
      const known = new Map((parent?.lanes.entries('artifact') ?? []).map((entry) => [entry.key, entry.value]));
      const missing = artifacts.filter((name) => !known.has(name));
      if (missing.length > 0) {
        return toolErrorOutcome({ code: 'REVIEW_ARTIFACT_UNKNOWN', tool: REVIEW_TOOL_NAME, message: `no artifact named ${missing.map((name) => JSON.stringify(name)).join(', ')} in this run`, details: { availableArtifacts: [...known.keys()] } });
      }
      const endWait = parent?.beginExternalWait();
      try {
        const contextId = `${context.contextId}/reviewer/${context.toolCallId}`;
        const prompt = reviewPrompt(artifacts.map((name) => ({ name, content: artifactText(known.get(name)!) })), criteria);
        const result = await createAgentRun(profile, options.bindings, { contextId, prompt, signal: context.signal }).execute();
        if (result.stopReason !== 'completed') {
          return toolErrorOutcome({ code: 'REVIEWER_FAILED', tool: REVIEW_TOOL_NAME, message: `the reviewer stopped without a verdict (${result.stopReason})`, details: { contextId, stopReason: result.stopReason } });
        }
        const verdict = parseVerdict(result.text, artifacts);
        if (!verdict) {
          return toolErrorOutcome({ code: 'REVIEW_VERDICT_INVALID', tool: REVIEW_TOOL_NAME, message: 'the reviewer did not answer with a verdict object', details: { contextId, answer: result.text.slice(0, 500) } });
        }
        return { content: JSON.stringify(verdict), data: verdict as unknown as JsonValue };
      } finally {
        endWait?.();
      }
    },
  };
}

function reviewPrompt(artifacts: readonly { name: string; content: string }[], criteria: string | undefined): string {
  return [
    `Review the artifacts below${criteria === undefined ? '' : ` for: ${criteria}`}.`,
    'Answer with one JSON object only: {"verdict": "approve" | "revise" | "reject", "summary": "<one paragraph>", "issues": ["<issue>", ...]}.',
    ...artifacts.map((artifact) => `Artifact "${artifact.name}":\n${artifact.content}`),
  ].join('\n\n');
}

/** An artifact's text: its `content` field when it has one, else its JSON. */
function artifactText(value: JsonValue): string {
  const content = typeof value === 'object' && value !== null && !Array.isArray(value) ? value['content'] : undefined;
  return typeof content === 'string' ? content : JSON.stringify(value);
}

/** The first JSON object in the reviewer's answer (code fences allowed) with a known verdict, or undefined. */
export function parseVerdict(text: string, artifacts: readonly string[]): ReviewVerdict | undefined {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end < start) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
  const candidate = parsed as { verdict?: unknown; summary?: unknown; issues?: unknown };
  if (!(REVIEW_VERDICTS as readonly unknown[]).includes(candidate.verdict)) return undefined;
  const issues = Array.isArray(candidate.issues) ? candidate.issues.filter((issue): issue is string => typeof issue === 'string') : [];
  return { artifacts: [...artifacts], verdict: candidate.verdict as ReviewVerdict['verdict'], summary: typeof candidate.summary === 'string' ? candidate.summary : '', issues };
}
