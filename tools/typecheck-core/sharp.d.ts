// Stand-in for the `sharp` package's types under tsconfig.core.json only (mapped there via `paths`).
// @huggingface/transformers' declarations mention `import('sharp').Sharp` (RawImage.toSharp, Node
// only); sharp's own declarations reference @types/node, which would bring every Node global into
// the check of src/core. src/core never calls toSharp, so an opaque type is all it needs.
export interface Sharp {
  readonly __sharpStandIn: never;
}
declare function sharp(): Sharp;
export default sharp;
