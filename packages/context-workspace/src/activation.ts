/**
 * The scoring rules of a block, as pure functions of its score. The
 * workspace keeps each block's score and applies these when it touches it.
 */

/** Every block starts here; a block whose score reaches 0 is removed. */
export const INITIAL_ACTIVATION_SCORE = 100;
export const MAX_ACTIVATION_SCORE = 100;
/** Below this a block is at the ABSTRACT level. */
export const ABSTRACT_TO_COMPACT_THRESHOLD = 30;
/** Below this (and at or above 30) a block is COMPACT; at or above, FULL. */
export const COMPACT_TO_FULL_THRESHOLD = 70;
/** How far below the next threshold a ceiling stops, so the level does not change. */
export const PROJECTION_EPSILON = 0.000_001;

const PRIMARY_PARTIAL_MULTIPLIER = 0.6;
const SECONDARY_COMPACT_MULTIPLIER = 0.2;
const SECONDARY_ABSTRACT_MULTIPLIER = 0.1;
const MILLISECONDS_PER_SECOND = 1000;
const SECONDS_PER_MINUTE = 60;

export type ProjectionLevel = 'ABSTRACT' | 'COMPACT' | 'FULL';

/** PRIMARY when the block focuses on the first requested domain, else SECONDARY. */
export type Exposure = 'PRIMARY' | 'SECONDARY';

/** Which of a block's three contents is rendered, smallest last. */
export type Projection = 'full' | 'compact' | 'abstract';

/**
 * `score − elapsedSeconds × timeFadeFactor / 60`, never below 0. A clock that
 * went backwards counts as no time passed.
 */
export function applyTimeFade(options: { score: number; elapsedMs: number; timeFadeFactor: number }): number {
  return timeFadedScore(options.score, options.elapsedMs, options.timeFadeFactor);
}

/** `applyTimeFade` with positional arguments, for the workspace's hot loop. */
export function timeFadedScore(score: number, elapsedMs: number, timeFadeFactor: number): number {
  if (!(elapsedMs > 0) || timeFadeFactor === 0) return score;
  const elapsedSeconds = elapsedMs / MILLISECONDS_PER_SECOND;
  return Math.max(0, score - (elapsedSeconds * timeFadeFactor) / SECONDS_PER_MINUTE);
}

/** `score − replaceFadeFactor`, never below 0. */
export function applyReplaceFade(score: number, replaceFadeFactor: number): number {
  return Math.max(0, score - replaceFadeFactor);
}

export function projectionLevel(score: number): ProjectionLevel {
  if (score < ABSTRACT_TO_COMPACT_THRESHOLD) return 'ABSTRACT';
  if (score < COMPACT_TO_FULL_THRESHOLD) return 'COMPACT';
  return 'FULL';
}

/**
 * One activation, sized by the level before it:
 * PRIMARY adds the factor at FULL and 0.6 × it at COMPACT or ABSTRACT;
 * SECONDARY adds 0.2 × it at COMPACT, 0.1 × it at ABSTRACT, nothing at FULL.
 * Ceilings keep a block from jumping more than one level: PRIMARY from
 * ABSTRACT stops just below 70 (COMPACT); SECONDARY stops just below the next
 * threshold, so it never lifts a block out of its level. The result is never
 * above 100 and never below the score it started from.
 */
export function activate(options: { score: number; exposure: Exposure; activateFactor: number }): number {
  return activateScore(options.score, options.exposure, options.activateFactor);
}

/** `activate` with positional arguments, for the workspace's hot loop. */
export function activateScore(score: number, exposure: Exposure, activateFactor: number): number {
  const level = projectionLevel(score);
  const increase = activateFactor * activationMultiplier(exposure, level);
  const raised = Math.min(activationCeiling(exposure, level), score + increase);
  return Math.max(score, raised);
}

function activationMultiplier(exposure: Exposure, level: ProjectionLevel): number {
  if (exposure === 'PRIMARY') return level === 'FULL' ? 1 : PRIMARY_PARTIAL_MULTIPLIER;
  if (level === 'COMPACT') return SECONDARY_COMPACT_MULTIPLIER;
  if (level === 'ABSTRACT') return SECONDARY_ABSTRACT_MULTIPLIER;
  return 0;
}

function activationCeiling(exposure: Exposure, level: ProjectionLevel): number {
  if (level === 'FULL') return MAX_ACTIVATION_SCORE;
  if (exposure === 'PRIMARY') {
    return level === 'ABSTRACT' ? COMPACT_TO_FULL_THRESHOLD - PROJECTION_EPSILON : MAX_ACTIVATION_SCORE;
  }
  return level === 'ABSTRACT'
    ? ABSTRACT_TO_COMPACT_THRESHOLD - PROJECTION_EPSILON
    : COMPACT_TO_FULL_THRESHOLD - PROJECTION_EPSILON;
}

/**
 * The projection an exposure renders at a level: PRIMARY shows at least the
 * compact (full at FULL); SECONDARY never shows the full (abstract at
 * ABSTRACT, compact otherwise).
 */
export function projectionFor(level: ProjectionLevel, exposure: Exposure): Projection {
  if (exposure === 'PRIMARY') return level === 'FULL' ? 'full' : 'compact';
  return level === 'ABSTRACT' ? 'abstract' : 'compact';
}

/** The next smaller projection, or undefined at `abstract`. */
export function smallerProjection(projection: Projection): Projection | undefined {
  if (projection === 'full') return 'compact';
  if (projection === 'compact') return 'abstract';
  return undefined;
}
