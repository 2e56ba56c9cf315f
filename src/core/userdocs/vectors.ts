/** The vectors stored with a user document (data shape shared by the index and the validator). */
/** Every vector of one user document, computed by one embedding model. */
export interface UserDocumentVectors {
  modelId: string;
  dimension: number;
  /** chunks × dimension: the retrieval strings. */
  retrieval: Float32Array;
  /** chunks × dimension: the chunk summaries (post-scoring). */
  summary: Float32Array;
  /** Passage windows: the chunk (index within the document), the character span, and windows × dimension vectors. */
  windows: { chunk: number[]; start: number[]; end: number[]; vectors: Float32Array };
  /** (1 + sections) × dimension: the document's summary-index nodes. */
  nodes: Float32Array;
}
