// Runs the fuzz suites (`*.fuzz.test.js`) with many more runs than `npm test`.
// Usage: npx tsc -b && node scripts/fuzz.mjs
// STRATA_FUZZ_RUNS sets the runs per property (default here 20,000; `npm test` uses 200);
// STRATA_FUZZ_SEED replays the seed a failure printed.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const env = { ...process.env, STRATA_FUZZ_RUNS: process.env.STRATA_FUZZ_RUNS ?? '20000' };
console.log(`# fuzz: ${env.STRATA_FUZZ_RUNS} runs per property${env.STRATA_FUZZ_SEED ? `, seed ${env.STRATA_FUZZ_SEED}` : ''}`);
const testScript = fileURLToPath(new URL('./test.mjs', import.meta.url));
const result = spawnSync(process.execPath, [testScript, '.fuzz.test.js'], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
