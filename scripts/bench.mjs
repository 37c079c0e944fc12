// Runs the compiled benchmarks: node scripts/bench.mjs [name-filter]
await import('../bench/dist/main.js');
