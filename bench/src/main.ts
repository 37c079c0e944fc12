// Benchmarks entry: each benchmark module registers itself in the list below.
console.log('no benchmarks yet');
