/** The cross-encoder's folder under the models base path (public/models in this repository); no dependencies, so vite.config.ts can read it. */
export const RERANKER_ID = 'skycite/reranker-minilm';
