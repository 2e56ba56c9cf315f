/** The SORA 2.5 calculator, computed from the corpus's own tables (cited data). */
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
export * from './density-words.js';
export * from './extract.js';
export * from './chain.js';
export * from './message-calc.js';
export * from './tables/grid.js';
