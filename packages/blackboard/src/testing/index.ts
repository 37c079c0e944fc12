export * from './blackboard-store-contract.js';
export * from './fixtures.js';
