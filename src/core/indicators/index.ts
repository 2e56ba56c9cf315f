/**
 * Indicator workflow (SKYSAFE UC-CLS-01): initial operation inputs → per-indicator retrieval →
 * calculator values with table citations, model majority votes or evidence-only rationale →
 * coherence checks → JSON / Markdown export. Browser-safe (no Node imports; see
 * `tools/generate-validators.ts` for the schema compiler).
 */
export * from './inputs.js';
export * from './catalog.js';
export * from './query.js';
export * from './schema.js';
export * from './model.js';
export * from './prompt.js';
export * from './sources.js';
export * from './deterministic.js';
export * from './coherence.js';
export * from './ground.js';
export * from './requirements.js';
export * from './run.js';
export * from './export.js';
