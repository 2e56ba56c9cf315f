/**
 * One CSV cell, for every CSV the app writes (the Requirements view's "Export CSV" today).
 * RFC 4180 quoting (a cell holding a comma, a quote or a line break is quoted, its quotes
 * doubled), and OWASP's rule against formula injection: a cell that begins with =, +, -, @,
 * a tab or a carriage return would be run as a formula by a spreadsheet, so it is prefixed
 * with a single quote and quoted (https://owasp.org/www-community/attacks/CSV_Injection).
 */

/** The characters a spreadsheet reads as the start of a formula (OWASP). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A value as one CSV cell, safe to open in a spreadsheet. */
export function csvCell(value: string): string {
  if (FORMULA_START.test(value)) return `"'${value.replace(/"/g, '""')}"`;
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** A row of cells, comma-separated (no line break). */
export const csvRow = (values: readonly string[]): string => values.map(csvCell).join(',');
