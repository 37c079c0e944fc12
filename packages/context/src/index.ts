export * from './errors/strata-error.js';
export * from './errors/configuration-error.js';
export * from './errors/context-input-error.js';
export * from './errors/context-budget-error.js';
export * from './messages.js';
export * from './token-estimator.js';
export * from './contributor.js';
export * from './ports.js';
