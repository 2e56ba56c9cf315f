/**
 * Curated SORA 2.0 restatements carry one label wherever a passage is shown (issue 23, item 5):
 * the label is decided in one place (`restatementLabel`, src/ui/format.ts) and the three places
 * that show a passage — the source cards, the evidence passages and the passage dialog — use it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CURATED_RESTATEMENT_LABEL, restatementLabel } from '../../src/ui/format';

const CURATED_EDITION = 'SORA 2.0-era AMC1 Article 11 and Annexes B–E; PDRA-S01, S02, G01, G02, G03 (narrative restatements)';

describe('restatementLabel', () => {
  it('labels a passage of the curated SORA 2.0 set', () => {
    expect(restatementLabel({ kind: 'curated', edition: CURATED_EDITION })).toBe('SORA 2.0 restatement (curated)');
    expect(CURATED_RESTATEMENT_LABEL).toBe('SORA 2.0 restatement (curated)');
  });

  it('leaves verbatim passages unlabelled, the SORA 2.0 text printed in the EASA file included', () => {
    expect(restatementLabel({ kind: 'section', edition: 'SORA 2.5, edition September 2025' })).toBeNull();
    expect(restatementLabel({ kind: 'section', edition: 'AMC1bis Article 11 (SORA 2.0, edition December 2020)' })).toBeNull();
    expect(restatementLabel({ kind: 'pdf-section', edition: 'SORA 2.0 guidance, 2021' })).toBeNull();
  });

  it('does not give the SORA 2.0 label to a curated item of another edition', () => {
    expect(restatementLabel({ kind: 'curated', edition: 'SORA 2.5 (narrative restatements)' })).toBeNull();
  });

  it('is used by every view that shows a passage, and its text is written nowhere else', () => {
    for (const file of ['src/ui/ask/SourcesPanel.svelte', 'src/ui/ask/EvidencePassages.svelte', 'src/ui/ChunkViewer.svelte']) {
      const source = readFileSync(file, 'utf8');
      expect(source, file).toMatch(/import \{ restatementLabel \} from '\.\.?\/(?:\.\.\/)?format'/);
      expect(source, file).toMatch(/\{restatementLabel\((?:c|chunk)\)\}/);
      expect(source, file).not.toContain('restatement (curated)');
    }
  });
});
