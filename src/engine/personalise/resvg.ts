/**
 * resvg-wasm, initialised once per isolate from the module Wrangler compiles at deploy time
 * (Workers cannot compile WebAssembly from bytes at run time).
 */
import { initWasm, Resvg } from '@resvg/resvg-wasm';
import resvgWasm from '@resvg/resvg-wasm/index_bg.wasm';
import type { RGBAImage } from '../types';

let ready: Promise<void> | undefined;

function init(): Promise<void> {
  ready ??= initWasm(resvgWasm).catch((err) => {
    ready = undefined;
    throw err;
  });
  return ready;
}

async function parse(svg: string, fontBuffers: Uint8Array[]): Promise<InstanceType<typeof Resvg>> {
  await init();
  return new Resvg(svg, {
    font: { fontBuffers, loadSystemFonts: false } as { fontBuffers: Uint8Array[] },
    shapeRendering: 2,
    textRendering: 2,
  });
}

/**
 * Renders an SVG at its own size with only the given fonts (no system fonts) and returns
 * resvg's premultiplied RGBA pixels. `cut`: the SVG is a drawing cut to part of it (text.ts
 * `within`), which may lie wholly outside it: then nothing is drawn, as resvg would draw nothing
 * there, without asking resvg (it panics drawing a clipped group far outside its pixmap).
 */
export async function renderSvg(svg: string, fontBuffers: Uint8Array[], cut = false): Promise<RGBAImage> {
  const resvg = await parse(svg, fontBuffers);
  try {
    if (cut) {
      const width = Math.round(resvg.width);
      const height = Math.round(resvg.height);
      if (inkOutside(resvg, width, height)) return { width, height, data: new Uint8ClampedArray(width * height * 4) };
    }
    const rendered = resvg.render();
    try {
      // `pixels` is already a copy out of resvg's memory: viewed, not copied again.
      const pixels = rendered.pixels;
      const data = new Uint8ClampedArray(pixels.buffer, pixels.byteOffset, pixels.byteLength);
      return { width: rendered.width, height: rendered.height, data };
    } finally {
      rendered.free();
    }
  } finally {
    resvg.free();
  }
}

/** Pixels past the drawing's box that anti-aliasing may reach: a band renders that many rows beyond it, and a box farther outside a pixmap draws nothing on it. */
const INK_MARGIN = 2;

/**
 * Whether the drawing's box lies wholly outside a `width` × `height` pixmap, past anti-aliasing's
 * reach: resvg would draw nothing there, and panics ("unreachable") drawing a clipped group more
 * than about twice the pixmap's size away from it (a rotated paragraph box's text cut to a page
 * its glyphs are far from).
 */
function inkOutside(resvg: InstanceType<typeof Resvg>, width: number, height: number): boolean {
  const box = resvg.getBBox();
  try {
    return !box || noInkWithin(box, width, height);
  } finally {
    box?.free();
  }
}

/** An empty drawing's box, or one wholly outside a `width` × `height` pixmap past anti-aliasing's reach. */
const noInkWithin = (box: { x: number; y: number; width: number; height: number }, width: number, height: number) =>
  !(box.width > 0 && box.height > 0) || box.x > width + INK_MARGIN || box.y > height + INK_MARGIN || box.x + box.width < -INK_MARGIN || box.y + box.height < -INK_MARGIN;

/**
 * Renders an SVG `width` × `height` px in bands of `bandRows` rows, each one render of the tree
 * parsed once (usvg lays out and outlines the glyphs once), cropped to the band by its viewBox:
 * resvg's pixmap, and so its WASM memory (which never shrinks), is one band, and only the band's
 * copy out of it is held beside the raster. Each band's premultiplied rows are handed to `band`
 * as they land in the raster (to be made straight there). Not the same bytes as one render:
 * tiny-skia clips a path that crosses the pixmap's edge, which moves its anti-aliasing.
 */
export async function renderSvgInBands(
  svg: string,
  fontBuffers: Uint8Array[],
  size: { width: number; height: number },
  bandRows: number,
  band: (rows: Uint8ClampedArray) => Promise<void>,
): Promise<RGBAImage> {
  const { width, height } = size;
  const data = new Uint8ClampedArray(width * height * 4);
  const resvg = await parse(svg, fontBuffers);
  try {
    const crop = resvg.getBBox();
    // Nothing to draw, or nothing within the raster (a cut drawing: see inkOutside).
    if (!crop || noInkWithin(crop, width, height)) {
      crop?.free();
      return { width, height, data };
    }
    try {
      // Only the rows the drawing's box reaches (with a margin for anti-aliasing): resvg panics
      // drawing a clipped group wholly outside its pixmap, and an empty band costs a render.
      const first = Math.max(0, Math.floor(crop.y) - INK_MARGIN);
      const last = Math.min(height, Math.ceil(crop.y + crop.height) + INK_MARGIN);
      for (let top = first; top < last; top += bandRows) {
        const rows = Math.min(bandRows, last - top);
        crop.x = 0;
        crop.y = top;
        crop.width = width;
        crop.height = rows;
        resvg.cropByBBox(crop);
        const rendered = resvg.render();
        try {
          if (rendered.width !== width || rendered.height !== rows) throw new Error(`resvg drew a band ${rendered.width}×${rendered.height}, not ${width}×${rows}`);
          data.set(rendered.pixels, top * width * 4);
        } finally {
          rendered.free();
        }
        await band(data.subarray(top * width * 4, (top + rows) * width * 4));
      }
    } finally {
      crop.free();
    }
  } finally {
    resvg.free();
  }
  return { width, height, data };
}

/** resvg initialised without drawing: print PDFs turn texts they never rasterise into paths with it (pdf/vector.ts svgOutlines). */
export const resvgReady = init;
