/**
 * Reading print PDFs as a printer's tools do: Ghostscript rasterises to CMYK / grey TIFFs
 * (test/helpers/print-tools.ts), decoded here (uncompressed strips, 8 bits a sample), and
 * pdf-lib reads the object graph for structural PDF/X checks.
 */
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFNumber, PDFRawStream, PDFRef, PDFStream, PDFString, type PDFObject } from 'pdf-lib';
import { expect } from 'vitest';
import { defaultProfile, readProfileInfo } from '../../../src/engine/colour';
import { fixtureServer, type ToolResult } from '../../helpers/fixtures';

export async function printTool(tool: string, file: Uint8Array, query: Record<string, string | number> = {}): Promise<ToolResult> {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  const res = await fetch(`${fixtureServer()}/tools/${tool}?${qs}`, { method: 'POST', body: file });
  if (!res.ok) throw new Error(`tool ${tool}: HTTP ${res.status}`);
  return (await res.json()) as ToolResult;
}

export interface Tiff {
  width: number;
  height: number;
  samples: number;
  data: Uint8Array;
  /** SHORT and LONG tags by number. */
  tags: Map<number, number[]>;
  /** The ICC profile tag (34675), when present. */
  icc?: Uint8Array;
}

/** An uncompressed baseline TIFF (what gs writes with -sCompression=none). */
export function decodeTiff(bytes: Uint8Array): Tiff {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const le = v.getUint16(0) === 0x4949;
  const u16 = (o: number) => v.getUint16(o, le);
  const u32 = (o: number) => v.getUint32(o, le);
  const ifd = u32(4);
  const tags = new Map<number, number[]>();
  let icc: Uint8Array | undefined;
  for (let i = 0, n = u16(ifd); i < n; i++) {
    const e = ifd + 2 + i * 12;
    const type = u16(e + 2);
    const count = u32(e + 4);
    if (u16(e) === 34675) icc = bytes.slice(u32(e + 8), u32(e + 8) + count);
    // Only SHORT and LONG values are read (sizes, offsets, counts).
    if (type !== 3 && type !== 4) continue;
    const size = type === 3 ? 2 : 4;
    const at = count * size <= 4 ? e + 8 : u32(e + 8);
    tags.set(u16(e), Array.from({ length: count }, (_, k) => (size === 2 ? u16(at + k * 2) : u32(at + k * 4))));
  }
  const width = tags.get(256)![0];
  const height = tags.get(257)![0];
  const samples = tags.get(277)?.[0] ?? 1;
  if ((tags.get(259)?.[0] ?? 1) !== 1) throw new Error('compressed TIFF');
  const offsets = tags.get(273)!;
  const counts = tags.get(279)!;
  const data = new Uint8Array(width * height * samples);
  let at = 0;
  offsets.forEach((o, i) => {
    data.set(bytes.subarray(o, o + counts[i]), at);
    at += counts[i];
  });
  return { width, height, samples, data, tags, icc };
}

/** Ghostscript's 32-bit CMYK rendering of page `page` (1-based) at `r` dpi. */
export async function gsCmyk(pdf: Uint8Array, r = 72, page = 1): Promise<Tiff> {
  const out = await printTool('gs-tiff32nc', pdf, { r });
  if (out.code !== 0) throw new Error(`gs failed: ${out.stderr}`);
  return decodeTiff(Uint8Array.from(atob(out.pages[page - 1]), (c) => c.charCodeAt(0)));
}

/** Ghostscript's 8-bit grey rendering of page 1. */
export async function gsGray(pdf: Uint8Array, r = 72): Promise<Tiff> {
  const out = await printTool('gs-tiffgray', pdf, { r });
  if (out.code !== 0) throw new Error(`gs failed: ${out.stderr}`);
  return decodeTiff(Uint8Array.from(atob(out.pages[0]), (c) => c.charCodeAt(0)));
}

export const pixel = (t: Tiff, x: number, y: number) => [...t.data.subarray((y * t.width + x) * t.samples, (y * t.width + x + 1) * t.samples)];

/** The PDF's object graph for structural checks. */
export async function pdfGraph(bytes: Uint8Array) {
  const doc = await PDFDocument.load(bytes, { updateMetadata: false });
  const ctx = doc.context;
  const deref = <T extends PDFObject>(o: PDFObject | undefined): T | undefined => (o instanceof PDFRef ? (ctx.lookup(o) as T) : (o as T));
  const info = deref<PDFDict>(ctx.trailerInfo.Info)!;
  const objects = ctx.enumerateIndirectObjects().map(([, o]) => o);
  const dictOf = (o: PDFObject) => (o instanceof PDFStream ? o.dict : o instanceof PDFDict ? o : undefined);
  return {
    doc,
    catalog: doc.catalog,
    info,
    deref,
    header: new TextDecoder().decode(bytes.subarray(0, 8)),
    /** Every dictionary of the file (stream dictionaries included). */
    dicts: objects.map(dictOf).filter((d): d is PDFDict => !!d),
    streamText: (o: PDFObject | undefined) => {
      const s = deref<PDFRawStream>(o)!;
      return new TextDecoder().decode(s.contents);
    },
    name: (d: PDFDict, key: string) => (d.get(PDFName.of(key)) as PDFName | undefined)?.decodeText(),
    array: (d: PDFDict, key: string) => deref<PDFArray>(d.get(PDFName.of(key))),
  };
}

/** A PDF string (literal or hex) as text; undefined for anything else. */
export const pdfText = (o: unknown) => (o instanceof PDFString || o instanceof PDFHexString ? o.decodeText() : undefined);

/**
 * The PDF/X-4 marks of a CMYK print PDF of ours, titled `title`: header 1.6; an output intent
 * GTS_PDFX whose profile is the default CMYK one (N 4, its description as OutputConditionIdentifier
 * and Info); GTS_PDFXVersion and Trapped False in the info dictionary and in the XMP packet, which
 * pdfinfo parses. Returns the graph for the caller's own checks.
 */
export async function expectPdfX4(bytes: Uint8Array, title: string) {
  const g = await pdfGraph(bytes);
  expect(g.header).toBe('%PDF-1.6');
  const intent = g.deref<PDFDict>(g.array(g.catalog, 'OutputIntents')!.get(0))!;
  expect(g.name(intent, 'S')).toBe('GTS_PDFX');
  const description = readProfileInfo(defaultProfile('Cmyk')).description;
  expect(pdfText(intent.get(PDFName.of('OutputConditionIdentifier')))).toBe(description);
  expect(pdfText(intent.get(PDFName.of('Info')))).toBe(description);
  const profile = g.deref<PDFRawStream>(intent.get(PDFName.of('DestOutputProfile')))!;
  expect((profile.dict.get(PDFName.of('N')) as PDFNumber).asNumber()).toBe(4);
  expect(pdfText(g.info.get(PDFName.of('GTS_PDFXVersion')))).toBe('PDF/X-4');
  expect(g.name(g.info, 'Trapped')).toBe('False');
  expect(pdfText(g.info.get(PDFName.of('Title')))).toBe(title);
  const xmp = g.streamText(g.catalog.get(PDFName.of('Metadata')));
  expect(xmp).toContain('<pdfxid:GTS_PDFXVersion>PDF/X-4</pdfxid:GTS_PDFXVersion>');
  expect(xmp).toContain('<pdf:Trapped>False</pdf:Trapped>');
  expect((await printTool('pdfinfo-meta', bytes)).stdout).toContain('pdfxid:GTS_PDFXVersion');
  return { g, xmp };
}
