// Requests the API must refuse with a 4xx, shared by its in-process and real-server tests.

/** Each of the seven per-run routes, with a body where it takes one. */
export const PER_RUN_ROUTES: ReadonlyArray<readonly [method: string, suffix: string, body?: string]> = [
  ['GET', ''],
  ['POST', '/cancel'],
  ['POST', '/messages', JSON.stringify({ approved: true })],
  ['GET', '/traces'],
  ['GET', '/view'],
  ['GET', '/view/turns.json'],
  ['GET', '/events'],
];

/** Run ids no run can have, as they appear in a path: NUL, too long, an escaped slash, control characters, non-ASCII, a bad escape. */
export const BAD_RUN_IDS = ['run%00x', 'r'.repeat(129), 'run%2Fx', 'run%2fturn-1', 'run%2E%2E%2F', 'run%01x', 'run%7Fx', 'run%0Ax', 'run%C2%85x', 'r%C3%BCn', 'run%E2%80%AEx', 'run%ZZ', 'run x', '-run'];
