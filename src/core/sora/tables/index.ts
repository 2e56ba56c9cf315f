/** Typed copies of the SORA 2.5 tables of AMC1 Article 11, each with its printed source. */
export * from './igrc-table.js';
export * from './grc-mitigations-table.js';
export * from './sail-table.js';
export * from './tmpr-table.js';
export * from './containment-tables.js';
export * from './oso-table.js';
