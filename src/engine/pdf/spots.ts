/**
 * A PSD's spot channels in a print PDF (issue 20 §2, docs/pdf.md "Spot channels"): each becomes
 * a `/Separation` colour space named as in the PSD, whose alternate is the ink's colour (DeviceCMYK
 * or Lab as Photoshop recorded it), drawn as 1-component images over everything else on the page
 * so that the process plates under them keep their ink and the separation carries the channel's
 * tints exactly (see spotGraphicsState).
 */
import { cmykPercentToSrgb } from '../colour';
import type { CompiledSpot } from '../compiled/spots';
import { labToSrgb, psdLayout, spotRows, type SpotInk } from '../psd/spots';
import { upFiltered, zlib } from './flate';
import type { StripColour, StripScratch } from './image';
import { name, type PdfRef, type PdfValue, type PdfWriter } from './writer';

/** One spot channel of a page. */
export interface PdfSpot {
  /** The ink's name (the PSD channel's): the separation's colorant name. */
  name: string;
  ink: SpotInk;
  /** Tints of rows [top, bottom): one byte a pixel, 0 = no ink, 255 = full ink. */
  rows(top: number, bottom: number): Promise<Uint8Array>;
}

/** How a document's spot channels are written (shared by its pages). */
export interface SpotContext {
  /** The page's process colour space (alternate for inks recorded in RGB). */
  processSpace: PdfValue;
  /** The output conversion of CMYK and grey output (RGB inks are converted through it). */
  colour?: StripColour;
  /** PDF/X-1a: DeviceCMYK alternates only, no blend modes. */
  x1a: boolean;
  /**
   * Whether a CMYK ink may keep DeviceCMYK as its alternate: CMYK output, or a plain PDF. A
   * PDF/X file with a grey or RGB output intent gets the ink converted into its process space.
   */
  cmykAlternate: boolean;
  /** Separation colour spaces already written (one object each), by name and alternate. */
  spaces: Map<string, PdfRef>;
}

/** The ink's alternate space and its full-tint values (the tint transform runs from none to those). */
function alternate(ink: SpotInk, ctx: SpotContext): { space: PdfValue; none: number[]; full: number[] } {
  if (ink.space === 'Cmyk' && ctx.cmykAlternate) return { space: name('DeviceCMYK'), none: [0, 0, 0, 0], full: ink.values.map(round4) };
  if (ink.space === 'Lab' && !ctx.x1a) {
    return { space: [name('Lab'), { WhitePoint: [0.9642, 1, 0.8249], Range: [-128, 127, -128, 127] }], none: [100, 0, 0], full: ink.values.map(round4) };
  }
  // RGB inks, Lab ones in PDF/X-1a (which allows no Lab) and CMYK ones under a grey or RGB
  // output intent: the process space, converted as the page is.
  const rgb =
    ink.space === 'Lab' ? labToSrgb(ink.values) : ink.space === 'Cmyk' ? cmykPercentToSrgb(ink.values.map((v) => v * 100)) : (ink.values.map((v) => Math.round(v * 255)) as [number, number, number]);
  if (!ctx.colour) return { space: ctx.processSpace, none: [1, 1, 1], full: rgb.map((v) => round4(v / 255)) };
  const out = new Uint8Array(ctx.colour.channels);
  ctx.colour.convert(Uint8Array.of(...rgb, 255), out, 1);
  // CMYK values are ink (0 = paper); a grey value is lightness (255 = paper).
  const full = [...out].map((v) => round4(v / 255));
  return { space: ctx.processSpace, none: out.length === 1 ? [1] : [0, 0, 0, 0], full };
}

const round4 = (v: number) => Math.round(v * 10000) / 10000;

/** The `/Separation` colour space of `spot`, written once per document and alternate. */
async function separationSpace(w: PdfWriter, spot: PdfSpot, ctx: SpotContext): Promise<PdfRef> {
  const alt = alternate(spot.ink, ctx);
  const key = JSON.stringify([spot.name, alt.full, alt.none.length]);
  let ref = ctx.spaces.get(key);
  if (!ref) {
    ref = w.alloc();
    // Type 2 (exponential, N 1) function: tint 0 is paper, tint 1 the ink's full colour.
    await w.object(ref, [name('Separation'), name(spot.name), alt.space, { FunctionType: 2, Domain: [0, 1], C0: alt.none, C1: alt.full, N: 1 }]);
    ctx.spaces.set(key, ref);
  }
  return ref;
}

/**
 * The graphics state spot images are drawn in, so that the process plates under them keep their
 * ink: PDF/X-1a (no transparency) overprints (`/OP /op true /OPM 1`); elsewhere Multiply, which
 * adds the ink to what lies under it on every plate and shows it multiplied in viewers that do
 * not simulate overprint. (Both at once made Ghostscript 10 composite the spot plate twice,
 * 1 − (1 − t)², and change the process plates: measured in test/engine/pdf/spots.test.ts.)
 */
export function spotGraphicsState(x1a: boolean): PdfValue {
  return x1a ? { Type: name('ExtGState'), OP: true, op: true, OPM: 1 } : { Type: name('ExtGState'), BM: name('Multiply') };
}

/**
 * Writes the strips of each spot of a page as Separation images (strips with no ink are left
 * out) and returns their content-stream operators: `draw(key, top, rows)` places one image.
 */
export async function writeSpotStrips(
  w: PdfWriter,
  spots: PdfSpot[],
  page: { width: number; height: number; rowsPerStrip: number },
  ctx: SpotContext,
  scratch: StripScratch,
  place: (ref: PdfRef, top: number, rows: number) => string,
): Promise<string[]> {
  const ops: string[] = [];
  const { width, height, rowsPerStrip } = page;
  for (const spot of spots) {
    const space = await separationSpace(w, spot, ctx);
    for (let top = 0; top < height; top += rowsPerStrip) {
      const bottom = Math.min(height, top + rowsPerStrip);
      const tints = await spot.rows(top, bottom);
      if (!tints.some((t) => t !== 0)) continue;
      const rows = bottom - top;
      const filtered = upFiltered(tints, width, rows, 0, 1, scratch.get(3, (width + 1) * rows), 1);
      const ref = w.alloc();
      await w.stream(
        ref,
        {
          Type: name('XObject'),
          Subtype: name('Image'),
          Width: width,
          Height: rows,
          BitsPerComponent: 8,
          ColorSpace: space,
          Filter: name('FlateDecode'),
          DecodeParms: filtered.decodeParms,
        },
        await zlib(filtered.data),
      );
      ops.push(place(ref, top, rows));
    }
  }
  return ops;
}

/**
 * The PDF spots of a template: each channel's tints read from the PSD (`read`, called once, when
 * a strip first needs it), a plane at a time, top to bottom (a jump back starts it anew).
 */
export function psdSpots(spots: CompiledSpot[], read: () => Promise<Uint8Array | null>): PdfSpot[] {
  let psd: Promise<Uint8Array | null> | undefined;
  return spots.map((spot) => {
    let reader: { next(): Uint8Array } | null = null;
    let y = 0;
    return {
      name: spot.name,
      ink: spot.ink,
      async rows(top, bottom) {
        psd ??= read();
        const layout = psdLayout((await psd) ?? new Uint8Array(0));
        if (!layout) throw new Error(`The template's spot channel "${spot.name}" could not be read.`);
        if (!reader || top < y) {
          reader = spotRows(layout, spot.plane);
          y = 0;
        }
        for (; y < top; y++) reader.next();
        const out = new Uint8Array(layout.width * (bottom - top));
        for (let row = 0; y < bottom; y++, row++) out.set(reader.next(), row * layout.width);
        return out;
      },
    };
  });
}
