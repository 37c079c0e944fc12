export * from './blackboard-store-contract.js';
export * from './fixtures.js';
export * from './worked-example.js';
