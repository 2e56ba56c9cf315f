/** Node writer for {@link exportAssessment} (CLI). Does not create folders: a missing folder is an ExportError. */
import { writeFile } from 'node:fs/promises';
import type { ExportWriter } from './export.js';

export const nodeFileWriter: ExportWriter = async (path, content) => {
  await writeFile(path, content, { encoding: 'utf8' });
};
