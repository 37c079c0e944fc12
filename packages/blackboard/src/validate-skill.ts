import { SkillContractError, type SkillViolation } from './errors/skill-contract-error.js';
import { parseSegmentPolicy } from './segment-policy.js';
import { isValidTag, isValidTagPattern, tagPatternWithinAny } from './tag-pattern.js';
import type { ContextSegment, SegmentOverride, WorkerSkill } from './worker-skill.js';

/**
 * The design checklist of seed 004 §10 as code. Returns every violation
 * (empty when the skill is sound); `validateSkill` throws them.
 */
export function skillViolations(skill: WorkerSkill): SkillViolation[] {
  const violations: SkillViolation[] = [];
  const add = (code: string, field: string, message: string) => violations.push({ code, field, message });

  if (skill.inputTags.length === 0) add('SKILL_INPUT_TAGS_EMPTY', 'inputTags', 'lists no tag: the worker could read nothing');
  const inputTags = skill.inputTags.filter((pattern, index) => {
    if (isValidTagPattern(pattern)) return true;
    add('SKILL_TAG_PATTERN_INVALID', `inputTags[${index}]`, `"${pattern}" is not a tag pattern`);
    return false;
  });
  skill.outputTags.forEach((tag, index) => {
    if (!isValidTag(tag)) add('SKILL_OUTPUT_TAG_INVALID', `outputTags[${index}]`, `"${tag}" is not an exact tag (outputs take no wildcard)`);
  });
  skill.finalTags.forEach((tag, index) => {
    if (!skill.outputTags.includes(tag)) add('SKILL_FINAL_TAG_NOT_OUTPUT', `finalTags[${index}]`, `"${tag}" is not one of outputTags`);
  });

  const checkPatterns = (tags: readonly string[], field: string) => {
    if (tags.length === 0) add('SKILL_SEGMENT_TAGS_EMPTY', field, 'lists no tag pattern');
    tags.forEach((pattern, index) => {
      if (!isValidTagPattern(pattern)) add('SKILL_TAG_PATTERN_INVALID', `${field}[${index}]`, `"${pattern}" is not a tag pattern`);
      else if (!tagPatternWithinAny(pattern, inputTags)) {
        add('SKILL_SEGMENT_OUTSIDE_INPUT_TAGS', `${field}[${index}]`, `"${pattern}" is not within inputTags; add it to the whitelist or drop it`);
      }
    });
  };
  const checkPolicy = (policy: string | undefined, tier: string | undefined, field: string) => {
    if (policy === undefined) return;
    if (parseSegmentPolicy(policy) === undefined) {
      add('SKILL_POLICY_INVALID', field, `"${policy}" is not a policy (latest, concat, tail_lines_N, tail_tokens_N, last_N_turns)`);
    } else if (tier === 'static') {
      add('SKILL_POLICY_ON_STATIC', field, 'static segments are not trimmed; declare the segment dynamic to give it a policy');
    }
  };

  const segments = skill.contextSegments;
  const segmentIds = new Set<string>();
  if (segments !== undefined) {
    if (segments.length === 0) add('SKILL_SEGMENTS_EMPTY', 'contextSegments', 'is empty; omit it to use the JSON fallback');
    segments.forEach((segment, index) => {
      const field = `contextSegments[${index}]`;
      if (segmentIds.has(segment.id)) add('SKILL_SEGMENT_ID_DUPLICATE', `${field}.id`, `"${segment.id}" is declared twice`);
      segmentIds.add(segment.id);
      checkPatterns(segment.tags, `${field}.tags`);
      checkPolicy(segment.policy, segment.tier, `${field}.policy`);
    });
    for (const tier of ['static', 'dynamic'] as const) {
      if (segments.length > 0 && !segments.some((segment) => segment.tier === tier)) {
        add('SKILL_TIER_MISSING', 'contextSegments', `declares no ${tier} segment (list which tags are ${tier})`);
      }
    }
  }

  for (const [name, variant] of Object.entries(skill.variants)) {
    const field = `variants.${name}`;
    if (segments === undefined) {
      add('SKILL_VARIANT_WITHOUT_SEGMENTS', field, 'overrides segments but the skill declares no contextSegments');
      continue;
    }
    const byId = new Map<string, ContextSegment>(segments.map((segment) => [segment.id, segment]));
    (variant.segments ?? []).forEach((override: SegmentOverride, index) => {
      const overrideField = `${field}.segments[${index}]`;
      const base = byId.get(override.id);
      if (base === undefined) {
        add('SKILL_VARIANT_UNKNOWN_SEGMENT', `${overrideField}.id`, `"${override.id}" names no segment of contextSegments`);
        return;
      }
      if (override.tags !== undefined) checkPatterns(override.tags, `${overrideField}.tags`);
      checkPolicy(override.policy ?? variant.policies?.[override.id] ?? base.policy, override.tier ?? base.tier, `${overrideField}.policy`);
    });
    for (const [segmentId, policy] of Object.entries(variant.policies ?? {})) {
      const base = byId.get(segmentId);
      if (base === undefined) add('SKILL_VARIANT_UNKNOWN_SEGMENT', `${field}.policies.${segmentId}`, `"${segmentId}" names no segment of contextSegments`);
      else checkPolicy(policy, variant.segments?.find((override) => override.id === segmentId)?.tier ?? base.tier, `${field}.policies.${segmentId}`);
    }
    (variant.omitSegments ?? []).forEach((segmentId, index) => {
      if (!byId.has(segmentId)) add('SKILL_VARIANT_UNKNOWN_SEGMENT', `${field}.omitSegments[${index}]`, `"${segmentId}" names no segment of contextSegments`);
    });
  }

  const isolation = skill.contextIsolation;
  if (isolation.mode === 'blind_review') {
    if (isolation.hiddenTags.length === 0) add('SKILL_ISOLATION_HIDDEN_EMPTY', 'hiddenTags', 'blind_review needs the tags the reviewer must not see');
    isolation.hiddenTags.forEach((pattern, index) => {
      if (!isValidTagPattern(pattern)) add('SKILL_TAG_PATTERN_INVALID', `hiddenTags[${index}]`, `"${pattern}" is not a tag pattern`);
    });
  }
  if (isolation.mode === 'role_pov') {
    if (!isValidTag(isolation.roleTagsPrefix)) add('SKILL_TAG_PATTERN_INVALID', 'roleTagsPrefix', `"${isolation.roleTagsPrefix}" is not a tag`);
    isolation.userOnlyTags.forEach((pattern, index) => {
      if (!isValidTagPattern(pattern)) add('SKILL_TAG_PATTERN_INVALID', `userOnlyTags[${index}]`, `"${pattern}" is not a tag pattern`);
    });
  }
  return violations;
}

/** Throws a `SkillContractError` listing every checklist violation of the skill. */
export function validateSkill(skill: WorkerSkill): void {
  const violations = skillViolations(skill);
  if (violations.length > 0) throw new SkillContractError({ skill: skill.name, violations });
}
