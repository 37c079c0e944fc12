import { SkillContractError } from './errors/skill-contract-error.js';
import { DEFAULT_SEGMENT_POLICY, parseSegmentPolicy, type SegmentPolicy } from './segment-policy.js';
import { validateSkill } from './validate-skill.js';
import { DEFAULT_WELL_KNOWN_TAGS } from './well-known-tags.js';
import type { ContextIsolation, ContextSegment, SegmentTier, WorkerSkill } from './worker-skill.js';

/** A segment with its variant and profile applied and its policy parsed. */
export interface ResolvedSegment {
  readonly id: string;
  readonly tier: SegmentTier;
  readonly tags: readonly string[];
  readonly label?: string;
  readonly policy: SegmentPolicy;
}

/** Everything one invocation of a worker may see and write: the skill after its variant and profile. */
export interface WorkerContract {
  readonly skill: string;
  readonly variant?: string;
  readonly inputTags: readonly string[];
  readonly outputTags: readonly string[];
  readonly finalTags: readonly string[];
  /** Absent: the JSON fallback. */
  readonly segments?: readonly ResolvedSegment[];
  /** The profile's `historyPolicy`, which wins over every other policy of the history tag. */
  readonly historyPolicy?: SegmentPolicy;
  readonly isolation: ContextIsolation;
  readonly body: string;
}

export interface ResolveWorkerContractOptions {
  readonly skill: WorkerSkill;
  /** A variant predefined in the skill. */
  readonly variant?: string;
  /** From the instance profile, e.g. `last_15_turns`; applies to segments holding the history tag. */
  readonly historyPolicy?: string;
  /** Default `对话.历史`. */
  readonly historyTag?: string;
}

/**
 * Applies a variant (segment overrides, policies, omissions) and a profile's
 * history policy to a skill. Validates the skill first; an unknown variant
 * or a bad history policy is a `SkillContractError` naming it.
 */
export function resolveWorkerContract(options: ResolveWorkerContractOptions): WorkerContract {
  const { skill } = options;
  validateSkill(skill);
  const historyTag = options.historyTag ?? DEFAULT_WELL_KNOWN_TAGS.history;
  const variant = options.variant === undefined ? undefined : skill.variants[options.variant];
  if (options.variant !== undefined && variant === undefined) {
    const known = Object.keys(skill.variants).sort().join(', ') || 'none';
    throw new SkillContractError({
      skill: skill.name,
      violations: [{ code: 'SKILL_VARIANT_UNKNOWN', field: 'variant', message: `"${options.variant}" is not a variant of this skill (known: ${known})` }],
    });
  }
  let historyPolicy: SegmentPolicy | undefined;
  if (options.historyPolicy !== undefined) {
    historyPolicy = parseSegmentPolicy(options.historyPolicy);
    if (historyPolicy === undefined) {
      throw new SkillContractError({
        skill: skill.name,
        violations: [{ code: 'SKILL_POLICY_INVALID', field: 'historyPolicy', message: `"${options.historyPolicy}" is not a policy` }],
      });
    }
  }
  const segments = skill.contextSegments
    ?.filter((segment) => !(variant?.omitSegments ?? []).includes(segment.id))
    .map((segment) => resolveSegment(segment, { variant, historyPolicy, historyTag }));
  return {
    skill: skill.name,
    variant: options.variant,
    inputTags: skill.inputTags,
    outputTags: skill.outputTags,
    finalTags: skill.finalTags,
    segments,
    historyPolicy,
    isolation: skill.contextIsolation,
    body: skill.body,
  };
}

function resolveSegment(
  segment: ContextSegment,
  context: { variant: WorkerSkill['variants'][string] | undefined; historyPolicy: SegmentPolicy | undefined; historyTag: string },
): ResolvedSegment {
  const override = context.variant?.segments?.find((candidate) => candidate.id === segment.id);
  // A field the override leaves out (or undefined) keeps the segment's.
  const merged = {
    id: segment.id,
    tier: override?.tier ?? segment.tier,
    tags: override?.tags ?? segment.tags,
    label: override?.label ?? segment.label,
  };
  const policyName = context.variant?.policies?.[segment.id] ?? override?.policy ?? segment.policy;
  // validateSkill has checked every policy name already.
  let policy = policyName === undefined ? DEFAULT_SEGMENT_POLICY : (parseSegmentPolicy(policyName) as SegmentPolicy);
  if (context.historyPolicy !== undefined && merged.tags.includes(context.historyTag)) policy = context.historyPolicy;
  return {
    id: merged.id,
    tier: merged.tier,
    tags: merged.tags,
    label: merged.label,
    policy,
  };
}
