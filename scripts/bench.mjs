// Runs the compiled benchmarks: node scripts/bench.mjs [name-filter ...]
process.argv.splice(2, 0); // filters pass through to bench/dist/main.js
await import('../bench/dist/main.js');
