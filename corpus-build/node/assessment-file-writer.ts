/** Node writer for {@link exportAssessment} (src/core/assess/indicators/export.ts). Does not create folders: a missing folder is an ExportError. */
import { writeFile } from 'node:fs/promises';
import type { ExportWriter } from '../../src/core/assess/indicators/export.js';

export const nodeFileWriter: ExportWriter = async (path, content) => {
  await writeFile(path, content, { encoding: 'utf8' });
};
