/**
 * Print colour of print-product PDFs (issue 20 §2; docs/design-atoms.md, "Print colour"): the
 * same output settings as PSD print PDFs (src/engine/pdf/output.ts: colour space, profile,
 * intent, PDF/X flavour), applied to what pdf-lib writes. Vector colours go through
 * `vectorPaint` (sRGB → output profile; `cmyk()` colours as given in CMYK output), pixels through
 * a LittleCMS transform (straight RGBA → ink), and a PDF/X document gets its output intent,
 * information keys and XMP from src/engine/pdf/pdfx.ts.
 */
import { PDFArray, PDFHexString, PDFName, type PDFDocument } from 'pdf-lib';
import { colourTransform, defaultProfile } from '../colour';
import { vectorPaint, type ResolvedPrintColour } from '../pdf/output';
import { channelsOf, outputIntent, pdfxInfo, pdfxXmp } from '../pdf/pdfx';
import { toPdfLib } from '../pdf/pdf-lib-values';
import { num, PdfRef } from '../pdf/writer';
import { Unprocessable } from '../errors';
import type { ResolvedColor } from './schema';

/** The output a print-product PDF is written for (absent: RGB as before, `cmyk()` as DeviceCMYK). */
export interface PrintProductColour {
  output: ResolvedPrintColour;
  /**
   * `cmyk()` colours written exactly as given in CMYK output even when the output profile is not
   * the default CMYK one (default true; false converts them between the two profiles there).
   */
  keepOriginalColors?: boolean;
}

/** 422: PDF/X-1a allows no transparency, and the design's translucent content cannot be flattened (flatten.ts). */
export class PdfX1aTransparencyError extends Unprocessable {}

/** How a document's colours are written: operators for vector paint, samples for pixels. */
export interface InkWriter {
  /** `… k` / `… g` / `… rg` (fill) for a model colour. */
  fill(c: ResolvedColor): string;
  stroke(c: ResolvedColor): string;
  /**
   * The samples (0–255) of a flat colour for a recoloured image: as many as the image's colour
   * space has (4 for a `cmyk()` colour in RGB output without `colour`: DeviceCMYK as before).
   */
  samples(c: ResolvedColor): number[];
  /** Image samples per pixel (DeviceGray, DeviceRGB, DeviceCMYK). */
  channels: 1 | 3 | 4;
  /** Straight RGBA → ink (null: RGB output, pixels stay RGB). */
  convert: ((rgba: Uint8Array, ink: Uint8Array, pixels: number) => void) | null;
  /** PDF/X-1a: no soft masks, no constant alpha, no transparency groups (translucent items are flattened). */
  opaqueOnly: boolean;
  /** Identifies the conversion (caches of converted pictures). */
  key: string;
}

const legacyFill = (c: ResolvedColor) => (c.cmyk ? `${c.cmyk.map(num).join(' ')} k` : `${num(c.r / 255)} ${num(c.g / 255)} ${num(c.b / 255)} rg`);

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((v, i) => v === b[i]);

/** The document's colour writer: today's RGB (with `cmyk()` as DeviceCMYK) when `colour` is absent. */
export async function inkWriter(colour: PrintProductColour | undefined): Promise<InkWriter> {
  if (!colour) {
    return {
      fill: legacyFill,
      stroke: (c) => legacyFill(c).replace(/k$/, 'K').replace(/rg$/, 'RG'),
      samples: (c) => (c.cmyk ? c.cmyk.map((v) => Math.round(v * 255)) : [c.r, c.g, c.b]),
      channels: 3,
      convert: null,
      opaqueOnly: false,
      key: 'rgb',
    };
  }
  const out = colour.output;
  const srgb = defaultProfile('Rgb');
  // Converting CMYK into another CMYK profile would turn a pure K into a rich black: only when
  // asked (keepOriginalColors false) and the output profile is not the default one (as PSDs).
  const exactCmyk = colour.keepOriginalColors !== false || sameBytes(out.profile, defaultProfile('Cmyk'));
  const paint = await vectorPaint(out, srgb, true, exactCmyk);
  const operands = (c: ResolvedColor) => paint(c, c.cmyk ? (c.cmyk.map((v) => v * 100) as [number, number, number, number]) : undefined);
  const [f, s] = out.colorSpace === 'Cmyk' ? ['k', 'K'] : out.colorSpace === 'Grayscale' ? ['g', 'G'] : ['rg', 'RG'];
  let convert: InkWriter['convert'] = null;
  if (out.colorSpace !== 'Rgb') {
    const t = await colourTransform({
      from: srgb,
      to: out.profile,
      fromLayout: 'RGBA',
      toLayout: out.colorSpace === 'Cmyk' ? 'CMYK' : 'GRAY',
      intent: out.intent,
      blackPointCompensation: out.blackPointCompensation,
    });
    convert = (rgba, ink, pixels) => t.apply(rgba, ink, pixels);
  }
  return {
    fill: (c) => `${operands(c)} ${f}`,
    stroke: (c) => `${operands(c)} ${s}`,
    samples: (c) =>
      operands(c)
        .split(' ')
        .map((v) => Math.round(Number(v) * 255)),
    channels: out.colorSpace === 'Cmyk' ? 4 : out.colorSpace === 'Grayscale' ? 1 : 3,
    convert,
    opaqueOnly: out.format === 'PdfX1a',
    key: out.key,
  };
}

/** Components of a JPEG's frame (SOF), or 0 when none is found. */
export function jpegComponents(bytes: Uint8Array): number {
  for (let i = 2; i + 9 < bytes.length; ) {
    if (bytes[i] !== 0xff) return 0;
    const marker = bytes[i + 1];
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    // SOF0–SOF15 except DHT (C4), JPG (C8), DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return bytes[i + 9];
    i += 2 + ((bytes[i + 2] << 8) | bytes[i + 3]);
  }
  return 0;
}

/**
 * Marks `doc` as PDF/X (ISO 15930; the caller sets the header version, which pdf-lib does not):
 * `/OutputIntents` with the output profile, the information keys (Trapped, GTS_PDFXVersion) and
 * the XMP packet, all from pdfx.ts as PSD print PDFs get them, and the trailer's ID. Nothing for
 * `Default`.
 */
export function markPdfx(doc: PDFDocument, output: ResolvedPrintColour, meta: { title: string; producer: string }): void {
  if (output.format === 'Default') return;
  const { context } = doc;
  const pdfx = { format: output.format, title: meta.title, producer: meta.producer, created: new Date(), documentId: crypto.randomUUID() };
  const profile = context.register(context.flateStream(output.profile, { N: channelsOf(output.colorSpace) }));
  const placeholder = new PdfRef(0);
  const refs = new Map([[placeholder, profile]]);
  doc.catalog.set(PDFName.of('OutputIntents'), toPdfLib(context, [outputIntent(placeholder, output.description)], { refs }));
  doc.catalog.set(PDFName.of('Metadata'), context.register(context.stream(pdfxXmp(pdfx), { Type: 'Metadata', Subtype: 'XML' })));
  context.trailerInfo.Info = context.register(toPdfLib(context, pdfxInfo(pdfx)));
  const id = PDFHexString.of(pdfx.documentId.replace(/-/g, ''));
  const ids = PDFArray.withContext(context);
  ids.push(id);
  ids.push(id);
  context.trailerInfo.ID = ids;
}
