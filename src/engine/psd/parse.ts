import { initializeCanvas, readPsd, type Psd } from 'ag-psd';
import { unprocessable } from '../errors';

/** Limits from the rendering contract. */
export const MAX_SIDE = 10_000;
export const MAX_LAYERS = 1_000;

const COLOR_MODES = ['Bitmap', 'Grayscale', 'Indexed', 'RGB', 'CMYK', '', '', 'Multichannel', 'Duotone', 'Lab'];

let canvasReady = false;
/** Workers have no canvas: ag-psd gets plain ImageData-like objects (read with useImageData). */
function ensureCanvas(): void {
  if (canvasReady) return;
  type Init = Parameters<typeof initializeCanvas>;
  const make = (width: number, height: number) => ({ width, height, data: new Uint8ClampedArray(width * height * 4) });
  initializeCanvas(
    (() => {
      throw new Error('canvas is not available in Workers');
    }) as unknown as Init[0],
    make as unknown as Init[1],
  );
  canvasReady = true;
}

export interface PsdHeader {
  version: 1 | 2;
  channels: number;
  width: number;
  height: number;
  depth: number;
  colorMode: number;
}

/** Reads and checks the 26-byte file header; refuses what we cannot render with a 422. */
export function readHeader(bytes: Uint8Array): PsdHeader {
  if (bytes.length < 26) throw unprocessable('The file is too short to be a PSD.');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const signature = String.fromCharCode(bytes[0], bytes[1], bytes[2], bytes[3]);
  const version = view.getUint16(4);
  if (signature !== '8BPS' || (version !== 1 && version !== 2)) {
    throw unprocessable('The file is not a PSD or PSB (expected signature 8BPS, version 1 or 2).');
  }
  const header: PsdHeader = {
    version,
    channels: view.getUint16(12),
    height: view.getUint32(14),
    width: view.getUint32(18),
    depth: view.getUint16(22),
    colorMode: view.getUint16(24),
  };
  if (header.colorMode !== 3) {
    const mode = COLOR_MODES[header.colorMode] || `mode ${header.colorMode}`;
    throw unprocessable(`Colour mode ${mode} is not supported; only 8-bit RGB templates can be rendered.`, [
      { path: 'colorMode', reason: mode },
    ]);
  }
  if (header.depth !== 8) {
    throw unprocessable(`Bit depth ${header.depth} is not supported; only 8-bit RGB templates can be rendered.`, [
      { path: 'bitsPerChannel', reason: String(header.depth) },
    ]);
  }
  if (header.width < 1 || header.height < 1 || header.width > MAX_SIDE || header.height > MAX_SIDE) {
    throw unprocessable(
      `Template size ${header.width}x${header.height} is outside the limit of 1..${MAX_SIDE} px a side.`,
      [{ path: 'size', reason: `${header.width}x${header.height}` }],
    );
  }
  return header;
}

/**
 * Parses the structure of a PSD/PSB. Layer and composite pixels stay compressed (`rawData`,
 * `rawCompositeData`: views into `bytes`), to be decoded one layer at a time by the compiler.
 */
export function parsePsd(bytes: Uint8Array): Psd {
  readHeader(bytes);
  ensureCanvas();
  let psd: Psd;
  try {
    psd = readPsd(bytes, { useRawData: true, useImageData: true, skipThumbnail: true, skipLinkedFilesData: false });
  } catch (e) {
    throw unprocessable(`The PSD could not be read: ${(e as Error).message}`);
  }
  const count = countLayers(psd.children ?? []);
  if (count > MAX_LAYERS) {
    throw unprocessable(`The template has ${count} layers; the limit is ${MAX_LAYERS}.`, [
      { path: 'layers', reason: String(count) },
    ]);
  }
  return psd;
}

function countLayers(layers: NonNullable<Psd['children']>): number {
  let n = 0;
  for (const l of layers) n += 1 + countLayers(l.children ?? []);
  return n;
}
