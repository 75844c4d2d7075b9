import { describe, expect, it } from 'vitest';
import { runTool } from '../helpers/fixtures';

// A hand-written one-page PDF: proves the prepress tool bridge works before any PDF code uses it.
function tinyPdf(): Uint8Array {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>',
  ];
  let out = '%PDF-1.7\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

describe('prepress tool bridge', () => {
  it('runs qpdf --check and pdfinfo on a PDF made inside workerd', async () => {
    const pdf = tinyPdf();
    expect((await runTool('qpdf-check', pdf)).code).toBe(0);
    const info = await runTool('pdfinfo', pdf);
    expect(info.stdout).toMatch(/Pages:\s+1/);
    expect(info.stdout).toMatch(/Page size:\s+595 x 842 pts/);
  });
});
