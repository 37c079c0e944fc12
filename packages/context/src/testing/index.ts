export * from './shared-data.js';
