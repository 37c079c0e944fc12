// Runs the compiled benchmarks: node scripts/bench.mjs [name-filter ...]
// Name filters in process.argv pass through to bench/dist/main.js as they are.
await import('../bench/dist/main.js');
