/** Step #4 — initial ARC. The decision tree is a figure, absent from the text corpus: never guessed. */
import { EASA_DOC_ID, notComputable, type NotComputable } from './types.js';

/** Always unavailable: the iARC assignment process is Figure 6 (p. 32), which the text does not contain. */
export function initialArc(): NotComputable {
  return notComputable(
    'unavailable',
    'The initial ARC decision tree is Figure 6 in the source and is not contained in the text corpus; ' +
      'determine the iARC from an official air collision risk map (S.4.4.3(b)) or from the figure in the published PDF, ' +
      'then use the residual ARC with the SAIL and TMPR tables.',
    [
      {
        docId: EASA_DOC_ID,
        caption: 'Figure 6 — ARC assignment process',
        page: 32,
        section: 'S.4.4.3(c)',
        row: '—',
        column: '—',
        cell: '(figure, not in the text)',
      },
    ],
  );
}
