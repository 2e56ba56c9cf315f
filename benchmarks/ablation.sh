#!/usr/bin/env bash
# Ablation table for the retrieval engine: one row per variant and corpus.
# Usage: bash benchmarks/ablation.sh [questions.jsonl]
set -euo pipefail
Q=${1:-../shared/eval/retrieval-dev.jsonl}
variants=(
  "default|"
  "dense only (no BM25)|--dense-only"
  "BM25 only|--bm25-only"
  "no passage windows|--no-windows"
  "+ abbreviation expansion|--expansion"
  "+ deterministic decomposition|--decompose"
  "+ field-aware post-scoring|--post"
  "+ MMR λ=0.6|--mmr"
  "+ MaxSim rerank|--rerank"
  "+ elbow 0.25|--elbow"
  "no score threshold|--no-threshold"
  "voy backend|--voy"
)
printf '| variant | corpus | Hit@1 | Hit@3 | Hit@5 | Hit@10 | MRR | reworked Hit@5 | unanswerable no-evidence |\n|---|---|---|---|---|---|---|---|---|\n'
for v in "${variants[@]}"; do
  name=${v%%|*}; flags=${v#*|}
  for c in easa-amc-gm-2019-947 skysafe-sora-curated; do
    # shellcheck disable=SC2086
    npm run -s eval -- --questions "$Q" --corpus "$c" --json $flags 2>/dev/null | node -e '
      const r = JSON.parse(require("fs").readFileSync(0, "utf8"));
      const o = r.overall, f = (x) => x.toFixed(3);
      console.log(`| ${process.argv[1]} | ${process.argv[2]} | ${f(o["hit@1"])} | ${f(o["hit@3"])} | ${f(o["hit@5"])} | ${f(o["hit@10"])} | ${f(o.mrr)} | ${f(r.byVariant.reworked["hit@5"])} | ${f(r.unanswerable.noEvidenceRate)} |`);
    ' "$name" "$c"
  done
done
