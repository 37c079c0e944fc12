// The three reproducible examples of the native executor (seed 000, automatic verification and examples).

// Runs
export { runShortExample } from './short-example.js';
export { runLongExample } from './long-example.js';
export { runDelegationExample } from './delegation-example.js';

// Output
export { exampleDirectory, EXAMPLE_DIR_NAMES } from './example-directory.js';
export type { ExampleSummary } from './example-run.js';
