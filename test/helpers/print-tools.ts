// Prepress tools for colour and PDF/X checks, merged into the fixture server's POST /tools/<name>
// table (test/global-setup.ts). Each entry maps the uploaded file (and query) to one program and
// its arguments (no shell); files the program writes as `page*` in `dir` come back base64.
type Tool = (file: string, q: URLSearchParams, dir: string) => [string, string[]];

/** `?r=<dpi>` (default 72), whole numbers only: the value reaches an argument. */
const dpi = (q: URLSearchParams) => String(Math.max(1, Math.min(1200, Math.round(Number(q.get('r')) || 72))));

// Ghostscript reads the PDF as a RIP would: no colour management of DeviceCMYK on the way out
// (tiff32nc / tiffsep write the ink values the file holds), -dSAFER, no PDF/X-specific switches.
const gs = (device: string, q: URLSearchParams, dir: string, out: string, file: string): [string, string[]] => [
  'gs',
  ['-q', '-dNOPAUSE', '-dBATCH', '-dSAFER', `-sDEVICE=${device}`, '-sCompression=none', `-r${dpi(q)}`, `-sOutputFile=${dir}/${out}`, file],
];

export const PRINT_TOOLS: Record<string, Tool> = {
  /** Every page as a 32-bit CMYK TIFF (page1.tif, page2.tif, …). */
  'gs-tiff32nc': (f, q, dir) => gs('tiff32nc', q, dir, 'page%d.tif', f),
  /** Separations: page1.tif is the composite, then one grey TIFF per ink named `page1(Cyan).tif` etc. */
  'gs-tiffsep': (f, q, dir) => gs('tiffsep', q, dir, 'page%d.tif', f),
  /** Every page as 8-bit grey TIFF. */
  'gs-tiffgray': (f, q, dir) => gs('tiffgray', q, dir, 'page%d.tif', f),
  /** pdfinfo -meta: the XMP packet as text. */
  'pdfinfo-meta': (f) => ['pdfinfo', ['-meta', f]],
  /** qpdf's JSON of the whole object graph (structural checks). */
  'qpdf-json': (f) => ['qpdf', ['--json', '--json-stream-data=none', f]],
};
