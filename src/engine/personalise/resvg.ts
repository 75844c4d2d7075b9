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

/**
 * Renders an SVG at its own size with only the given fonts (no system fonts) and returns
 * straight-alpha RGBA pixels.
 */
export async function renderSvg(svg: string, fontBuffers: Uint8Array[]): Promise<RGBAImage> {
  await init();
  const resvg = new Resvg(svg, {
    font: { fontBuffers, loadSystemFonts: false } as { fontBuffers: Uint8Array[] },
    shapeRendering: 2,
    textRendering: 2,
  });
  try {
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

/** resvg initialised without drawing: print PDFs turn texts they never rasterise into paths with it (pdf/vector.ts svgOutlines). */
export const resvgReady = init;
