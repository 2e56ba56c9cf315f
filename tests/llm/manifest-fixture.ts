/** An invented manifest in the layout npm run models:prepare writes (two files of one model). */
export const FIXTURE_MANIFEST = {
  format: 'skycite-mlc-models/1',
  models: [
    {
      model_id: 'Tiny-0.5B-Instruct-q4f32_1-SkyCite',
      source_model: 'Tiny-0.5B-Instruct',
      quantization: 'q4f32_1',
      model_url: 'Tiny-0.5B-Instruct-q4f32_1-SkyCite/resolve/main/',
      model_lib: 'libs/Tiny-q4f32_1-webgpu.wasm',
      required_features: [],
      vram_required_MB: 900,
      context_window_size: 4096,
      total_bytes: 30,
      files: [
        { path: 'Tiny-0.5B-Instruct-q4f32_1-SkyCite/resolve/main/params_shard_0.bin', size: 20, sha256: 'a'.repeat(64) },
        { path: 'libs/Tiny-q4f32_1-webgpu.wasm', size: 10, sha256: 'b'.repeat(64) },
      ],
    },
  ],
};
