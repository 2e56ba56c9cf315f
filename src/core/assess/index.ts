/** SORA 2.5 calculator and message router, computed from the corpus's own tables. */
export * from './types.js';
export * from './tables/index.js';
export * from './inputs.js';
export * from './igrc.js';
export * from './final-grc.js';
export * from './sail.js';
export * from './tmpr.js';
export * from './containment.js';
export * from './oso.js';
export * from './arc.js';
export * from './operation.js';
export * from './jurisdictions.js';
export * from './router.js';
export * from './eval.js';
