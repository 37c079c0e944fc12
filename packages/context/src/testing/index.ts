export * from './shared-data.js';
export * from './conversations.js';
