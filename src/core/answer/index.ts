/** The answer stage: prompts, messages, generation, grounding, evidence-only mode, citations, errors. */
export * from './citations.js';
export * from '../llm/complete.js';
export * from './config.js';
export * from '../llm/errors.js';
export * from './evidence-only.js';
export * from './generation.js';
export * from './grounding.js';
export * from './messages.js';
export { hasNoContext } from './no-context.js';
export * from './prompts.js';
export * from './reasoning.js';
export * from './wording.js';
