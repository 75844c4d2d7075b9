import { initializeCanvas, readPsd, type Psd } from 'ag-psd';
import { unprocessable } from '../errors';
import { ColorMode, colorModeName, normaliseColors, refuseUnsupportedMode } from './color-modes';
import { fileOrder, readWithParameterMasks, strayGroupEnds } from './layer-section';
import { patternBlockKeys } from './patterns';
import { readImageResources } from './resources';
import { attachRanges, channelDataLength, type Skeleton } from './skeleton';
import { boundStrings, unreadGlobalKeys, unreadResourceIds } from './strings';

/** Limits from the rendering contract. */
export const MAX_SIDE = 10_000;
export const MAX_LAYERS = 1_000;
/**
 * Groups nested deeper than Photoshop's own limit (10 levels since CS5) are refused: each open
 * level holds a surface of the canvas or strip being drawn (an isolated group's composite, the
 * clipping unit around it), all at once. 100 levels on a 4,000² canvas held 400 MB for a
 * preview (probe27: killed under 128 MB in workerd, even at 800²); only a writer other than
 * Photoshop makes such a file.
 */
export const MAX_GROUP_DEPTH = 10;
/**
 * A layer's pixel rectangle may pass the canvas edge (an off-canvas photo), but not without
 * bound: at most Photoshop's own PSD limit a side, and at most this many pixels, or four times
 * the canvas when that is more. Only what lies on the canvas is decoded (row loops are clamped),
 * but a ZIP channel is inflated to its full rectangle to prove it ends there, so the area is
 * what a crafted file could make us spend.
 */
export const MAX_LAYER_SIDE = 30_000;
export const MAX_LAYER_PIXELS = 50_000_000;
/**
 * The pixel and mask rectangles of all layers together (each counted whole, as above). The
 * compile's CPU goes with them: ~22 ns a pixel in Node, ~39 in local workerd (channel decode,
 * pyramid, deflate), and a print PDF spends about as much again; the Worker has cpu_ms = 300,000.
 * 300 full-canvas layers of 4,000² (4.8 G px, 19.7 MB of ZIP) took 106–139 s of Node CPU to
 * compile, and a 100 MB upload of flat ZIP layers could hold ~26 G px, past the limit after five
 * minutes of work (docs/performance.md, "Session 28: compile CPU"). This is 250 full layers of
 * 4,000², 40 of 10,000²; the public corpus's most is 3.6 M px (psdrb-example-design, 6.7 × its
 * canvas), the bench templates' 132 M px (bench-8000).
 */
export const MAX_TOTAL_LAYER_PIXELS = 4_000_000_000;
/**
 * What ag-psd may allocate while parsing. It decoded the patterns until they were read by
 * psd/patterns.ts (their blocks are hidden from it below); layers stay compressed (useRawData).
 * Kept as a bound on whatever else ag-psd decodes, in place of its default of 2 GB.
 */
const PARSE_MEMORY = 64 * 1024 * 1024;

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

/** The mode ag-psd is shown for modes it refuses (see parsePsd). */
const SHOWN: Partial<Record<number, number>> = {
  [ColorMode.CMYK]: ColorMode.RGB,
  [ColorMode.Lab]: ColorMode.RGB,
  [ColorMode.Duotone]: ColorMode.Grayscale,
  [ColorMode.Multichannel]: ColorMode.Grayscale,
};

/** Modes Photoshop keeps without layers: their merged image is the template. */
const FLAT = new Set<number>([ColorMode.Indexed, ColorMode.Bitmap, ColorMode.Multichannel]);

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
  refuseUnsupportedMode(header.colorMode, header.depth);
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
 * `skeleton`: `bytes` is a skeleton (psd/skeleton.ts); each layer channel gets its `range` in the
 * source instead of `data`, and the linked files' names it counted are bounded with the rest.
 */
export function parsePsd(bytes: Uint8Array, skeleton?: Pick<Skeleton, 'channels' | 'linked'>): Psd {
  const header = readHeader(bytes);
  // Before ag-psd builds them a character at a time (psd/strings.ts).
  boundStrings(bytes, undefined, undefined, skeleton?.linked);
  ensureCanvas();
  let psd: Psd;
  // ag-psd refuses CMYK, Duotone, Lab and Multichannel outright, though with raw data nothing it
  // reads depends on the mode: it is shown RGB (CMYK, Lab) or Grayscale (Duotone, Multichannel)
  // for the parse, and the header is restored before anyone else reads the bytes.
  const shown = SHOWN[header.colorMode] ?? header.colorMode;
  // What is shown to ag-psd otherwise is found first, on the bytes as uploaded, and put back in the
  // reverse order (finally, below): a scan that threw half-way, or two scans that found the same
  // byte (walks of a crafted file from different starts), would leave the bytes changed, and the
  // PSD stored after the compile must be the one uploaded (review, session 28).
  // The patterns are read by compile (psd/patterns.ts, with their transparency): ag-psd is shown
  // other keys for their blocks ('Pat_'), which it skips, instead of decoding them a second time.
  const patternKeys = patternBlockKeys(bytes).map((at) => [at, bytes[at + 3]] as const);
  // Image resources and document blocks nothing of ours reads from ag-psd are shown under id 0 and
  // keys ending in '_', which it skips (psd/strings.ts: some it would build a character at a time).
  const unread = unreadResourceIds(bytes).map((at) => [at, bytes[at], bytes[at + 1]] as const);
  const unreadKeys = unreadGlobalKeys(bytes).map((at) => [at, bytes[at + 3]] as const);
  // A group end that closes no group is shown as a plain layer (type 0), dropped below.
  const stray = strayGroupEnds(bytes).map(({ index, typeAt }) => ({ index, typeAt, type: bytes.slice(typeAt, typeAt + 4) }));
  if (shown !== header.colorMode) bytes[25] = shown;
  for (const [at] of patternKeys) bytes[at + 3] = 0x5f;
  for (const [at] of unread) bytes[at] = bytes[at + 1] = 0;
  for (const [at] of unreadKeys) bytes[at + 3] = 0x5f;
  for (const { typeAt } of stray) bytes.fill(0, typeAt, typeAt + 4);
  try {
    // Mask blocks whose parameters ag-psd would read as a real mask header (psd-tools #693) are
    // shown to it without them, and mended after (psd/layer-section.ts).
    psd = readWithParameterMasks(bytes, () =>
      readPsd(bytes, {
        useRawData: true,
        useImageData: true,
        skipThumbnail: true,
        skipLinkedFilesData: false,
        totalMemoryLimit: PARSE_MEMORY,
      }),
    );
  } catch (e) {
    const message = (e as Error).message;
    const box = /^Invalid (layer|mask|realMask) size$/.exec(message);
    if (box) {
      // ag-psd's own bound, met before ours: a rectangle inverted or past Photoshop's limit.
      const limit = bytes[5] === 2 ? 300_000 : 30_000;
      throw unprocessable(
        `A layer's ${box[1] === 'layer' ? 'pixel' : 'mask'} rectangle is inverted or more than ${limit} px a side (the most Photoshop allows).`,
        [{ path: 'layers', reason: `${box[1]} rectangle` }],
      );
    }
    if (message === 'Exceeded memory limit') {
      throw unprocessable(`The PSD needs more than ${PARSE_MEMORY / 1024 / 1024} MB once decoded while it is read.`, [{ path: 'psd', reason: 'too large' }]);
    }
    throw unprocessable(`The PSD could not be read: ${message}`);
  } finally {
    for (const { typeAt, type } of stray.reverse()) bytes.set(type, typeAt);
    for (const [at, last] of unreadKeys.reverse()) bytes[at + 3] = last;
    for (const [at, high, low] of unread.reverse()) [bytes[at], bytes[at + 1]] = [high, low];
    for (const [at, last] of patternKeys.reverse()) bytes[at + 3] = last;
    bytes[25] = header.colorMode;
  }
  if (skeleton) attachRanges(psd.children ?? [], bytes, skeleton.channels);
  if (stray.length) dropRecords(psd, new Set(stray.map((s) => s.index)));
  if (FLAT.has(header.colorMode) && psd.children?.length) {
    // Photoshop keeps these modes flat; layers here come from another writer and mean nothing we know.
    const mode = colorModeName(header.colorMode);
    throw unprocessable(`${mode === 'Indexed' ? 'An' : 'A'} ${mode} document with layers is not supported (Photoshop keeps ${mode} documents flat).`, [
      { path: 'colorMode', reason: `${mode} with layers` },
    ]);
  }
  setMode(psd.children ?? [], header.colorMode);
  Object.assign(psd, { colorMode: header.colorMode, bitsPerChannel: header.depth });
  if (header.colorMode !== ColorMode.RGB) normaliseColors(psd.children ?? [], readImageResources(bytes).icc);
  const count = countLayers(psd.children ?? []);
  if (count > MAX_LAYERS) {
    throw unprocessable(`The template has ${count} layers; the limit is ${MAX_LAYERS}.`, [
      { path: 'layers', reason: String(count) },
    ]);
  }
  const depth = groupDepth(psd.children ?? []);
  if (depth > MAX_GROUP_DEPTH) {
    throw unprocessable(`The template nests groups ${depth} deep; the limit is ${MAX_GROUP_DEPTH} (Photoshop's own).`, [
      { path: 'layers', reason: `groups nested ${depth} deep` },
    ]);
  }
  const pixels = checkLayerRectangles(psd.children ?? [], psd.width * psd.height);
  if (pixels > MAX_TOTAL_LAYER_PIXELS) {
    throw unprocessable(
      `The template's layers hold ${pixels.toLocaleString('en-US')} px in all; the limit is ${MAX_TOTAL_LAYER_PIXELS.toLocaleString('en-US')} px.`,
      [{ path: 'layers', reason: `${pixels} px in all` }],
    );
  }
  return psd;
}

/**
 * Takes the layers of the given records (file order, bottom first; each a group end shown as a
 * plain layer: section divider type 0) out of the tree. Where the tree does not line up with the
 * records (a group never closed), a layer that is not such a one stays.
 */
function dropRecords(psd: Psd, records: Set<number>): void {
  const drop = new Set(fileOrder(psd.children ?? []).filter((layer, i) => layer && records.has(i) && layer.sectionDivider?.type === 0));
  const prune = (layers: NonNullable<Psd['children']>): NonNullable<Psd['children']> =>
    layers.filter((l) => !drop.has(l)).map((l) => (l.children ? Object.assign(l, { children: prune(l.children) }) : l));
  psd.children = prune(psd.children ?? []);
}

/** How many groups deep the tree goes (a group at the top is 1). */
function groupDepth(layers: NonNullable<Psd['children']>): number {
  let deepest = 0;
  for (const l of layers) if (l.children) deepest = Math.max(deepest, 1 + groupDepth(l.children));
  return deepest;
}

type Rect = { left?: number; top?: number; right?: number; bottom?: number };

/**
 * Refuses a layer whose pixel data (a colour, transparency or mask channel) describes a
 * rectangle beyond the limits above, before any of it is decoded. Returns the pixels of the
 * rectangles with data, all layers together (each rectangle once: the colour channels share one).
 */
function checkLayerRectangles(layers: NonNullable<Psd['children']>, canvasArea: number): number {
  const maxPixels = Math.max(MAX_LAYER_PIXELS, 4 * canvasArea);
  let total = 0;
  for (const layer of layers) {
    if (layer.children) total += checkLayerRectangles(layer.children, canvasArea);
    let counted = 0; // bits: 1 the pixel rectangle, 2 the mask, 4 the real mask
    for (const channel of layer.rawData?.channels ?? []) {
      if (!channelDataLength(channel)) continue;
      const [what, rect]: [string, Rect | undefined] =
        channel.id === -2 ? ['mask', layer.mask] : channel.id === -3 ? ['mask', layer.realMask] : ['pixel', layer];
      const width = (rect?.right ?? 0) - (rect?.left ?? 0);
      const height = (rect?.bottom ?? 0) - (rect?.top ?? 0);
      let problem: string | undefined;
      if (width < 0 || height < 0) problem = 'is inverted';
      else if (width > MAX_LAYER_SIDE || height > MAX_LAYER_SIDE) problem = `exceeds ${MAX_LAYER_SIDE} px a side`;
      else if (width * height > maxPixels) problem = `exceeds ${maxPixels.toLocaleString('en-US')} px in all`;
      if (problem) {
        const name = layer.name ?? '';
        throw unprocessable(
          `Layer "${name}" has a ${width}x${height} px ${what} rectangle (top ${rect?.top ?? 0}, left ${rect?.left ?? 0}), which ${problem}.`,
          [{ path: `layers.${name}`, reason: `${what} rectangle ${width}x${height}` }],
        );
      }
      const bit = channel.id === -2 ? 2 : channel.id === -3 ? 4 : 1;
      if (!(counted & bit)) total += width * height;
      counted |= bit;
    }
  }
  return total;
}

function countLayers(layers: NonNullable<Psd['children']>): number {
  let n = 0;
  for (const l of layers) n += 1 + countLayers(l.children ?? []);
  return n;
}

/** Each layer's raw data names the document's real mode (see parsePsd). */
function setMode(layers: NonNullable<Psd['children']>, mode: number): void {
  for (const l of layers) {
    if (l.rawData) Object.assign(l.rawData, { colorMode: mode });
    setMode(l.children ?? [], mode);
  }
}
