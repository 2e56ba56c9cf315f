/** Text from an added HTML file: through DOMParser (inert), paragraphs kept, scripts and styles dropped. */
import { describe, expect, it } from 'vitest';
import { htmlToText, suggestedTitle } from '../../src/ui/library/extract-text.js';
import { htmlTitle, layoutPdf, metadataTitle, titleFromText, type PdfRun } from '../../src/ui/library/pdf-layout.js';
import { testWindow } from './dom.js';

describe('HTML as text', () => {
  it('keeps headings and paragraphs as blocks and drops scripts, styles and markup', async () => {
    const w = await testWindow();
    let ran = 0;
    (w as unknown as { __ran: () => void }).__ran = () => ran++;
    const html = `<!doctype html><html><head><title>t</title><style>p{color:red}</style></head><body>
      <h1>Night  flights</h1><p>A <strong>lighting plan</strong> is required.<br>Filed with the office.</p>
      <script>window.__ran()</script><img src=x onerror="window.__ran()">
      <table><tr><th>Zone</th><td>Park</td></tr></table><ul><li>One</li><li>Two</li></ul></body></html>`;
    const text = htmlToText(html, new w.DOMParser());
    expect(text).toBe('Night flights\n\nA lighting plan is required.\nFiled with the office.\n\nZone Park\n\nOne\n\nTwo');
    expect(ran).toBe(0);
    expect(w.document.body.innerHTML).toBe('');
  });
});

describe('the default title of an added file (issue 26, item 6)', () => {
  it('is the heading printed at the top of a Markdown or text file, not the file name', async () => {
    const md = new File(['Intro words.\n\n# Night *flights* near hospitals\n\nA lighting plan is required.'], 'lba_notice-03.md');
    expect(await suggestedTitle(md, 'markdown')).toBe('Night flights near hospitals');
    expect(await suggestedTitle(new File(['Flights near hospitals\n\nOperators shall obtain consent.'], 'x.txt'), 'text')).toBe('Flights near hospitals');
    // a first line that is a sentence of text is no title: the form keeps the file name
    expect(await suggestedTitle(new File(['Operators shall obtain consent.\nIt is kept.'], 'x.txt'), 'text')).toBeNull();
    expect(titleFromText(`${'Very long heading '.repeat(20)}\n\nText.`, 'text')).toBeNull();
  });

  it("is an HTML document's title (as text, nothing run), and a PDF's metadata title only when it is one", async () => {
    const w = await testWindow();
    let ran = 0;
    (w as unknown as { __ran: () => void }).__ran = () => ran++;
    expect(
      htmlTitle('<html><head><title>LBA <b>notice</b></title></head><body><h1>Other</h1><img src=x onerror="window.__ran()"></body></html>', new w.DOMParser()),
    ).toBe('LBA <b>notice</b>');
    expect(htmlTitle('<body><h1>Flights <em>near</em> hospitals</h1><p>x</p></body>', new w.DOMParser())).toBe('Flights near hospitals');
    expect(ran).toBe(0);
    expect(metadataTitle(' LBA guidance:  hospitals ')).toBe('LBA guidance: hospitals');
    for (const junk of ['Untitled', 'Microsoft Word - guidance_v3.docx', 'scan_0001.pdf', '', '  ', 42, undefined]) expect(metadataTitle(junk)).toBeNull();
  });
});

describe('a PDF page laid out for the chunker (issue 26, item 6)', () => {
  const run = (str: string, y: number, size = 10, x = 72): PdfRun => ({ str, x, y, width: str.length * size * 0.5, size, eol: true });
  it('sets a heading printed larger apart (its two lines joined), and starts a paragraph where the line spacing widens', () => {
    const page = [
      run('Flights near hospitals and', 800, 16),
      run('other protected sites', 782, 16),
      run('Operators shall obtain', 750),
      run('the consent of the hospital.', 738),
      run('Records are kept', 714),
      run('for two years.', 702),
    ];
    const { pages, firstHeading } = layoutPdf([page, [run('Annex', 800), run('Nothing else.', 788)]]);
    expect(pages).toEqual([
      'Flights near hospitals and other protected sites\n\nOperators shall obtain\nthe consent of the hospital.\n\nRecords are kept\nfor two years.',
      'Annex\nNothing else.',
    ]);
    expect(firstHeading).toBe('Flights near hospitals and other protected sites');
    // runs of one line (same baseline, no line end) are joined with a space where they are apart
    expect(layoutPdf([[{ ...run('Operators', 700), eol: false, width: 45 }, run('shall', 700, 10, 122)]]).pages).toEqual(['Operators shall']);
  });
});
