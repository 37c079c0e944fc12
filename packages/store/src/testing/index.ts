export * from './tool-output-store-contract.js';
export * from './session-store-contract.js';
export * from './sample-bodies.js';
export * from './child-process.js';
export * from './postgres-test-target.js';
export * from './temporary-directory.js';
