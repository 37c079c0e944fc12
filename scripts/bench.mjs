// Runs the compiled benchmarks: node scripts/bench.mjs [--runs N] [name-filter ...]
// bench/dist/main.js starts one process (node --expose-gc) per benchmark and run, and merges the runs;
// the arguments pass through to it as they are.
await import('../bench/dist/main.js');
