/**
 * The memory one request may use (issue 25 §1): a deployed isolate has 128 MB, local workerd has
 * no limit, so a request that needs more passes every local test and is killed in production.
 * The budget is 96 MB; the rest is the isolate's own (code, WASM instances, the caches' floor).
 *
 * What a preview holds at its peak, all known from the template and the request before anything
 * is fetched or drawn (docs/memory.md has the model and the measurements behind each figure):
 * - a frame above 16 MB (JPEG) or 6 MB (PNG) is coded as its strips are drawn and never held; a
 *   smaller one is held and coded at once, with the encoder's heap beside it;
 * - a canvas above 4 MB is drawn in strips whose working set (the strip, the layers' bands, the
 *   resize's rows) grows with the canvas width: a band is a full row of the layer;
 * - the coded bytes grow as the strips are coded and are held twice at the end (the parts and
 *   the file): not known up front, so a streamed encoder stops at `codedBytesLimit` (a 422 too);
 * - a placed picture is decoded before the frame is drawn, in a decoder holding about twice its
 *   decoded pixels (`checkDecodeMemory`, from the header's size).
 * Only what cannot fit is refused, with a 422 naming the limit.
 */
import { makeRoom } from '../cache';
import { MB } from '../cache/lru';
import { unprocessable } from '../errors';
import type { LayerNode } from '../types';
import { templateReach } from './kernel-reach';

export const REQUEST_MEMORY_BUDGET = 96 * MB;

/** Canvas bytes above which a frame is drawn in strips (src/engine/frame.ts STRIP_CANVAS_BYTES). */
const STRIP_CANVAS_BYTES = 4 * MB;
/** Frame bytes above which a JPEG preview is coded as its strips are drawn (src/engine/frame.ts STREAMED_JPEG_FRAME_BYTES). */
const STREAMED_JPEG_FRAME_BYTES = 16 * MB;
/**
 * Frame bytes above which a PNG preview is coded as its strips are drawn (renderFramePng): every
 * frame not kept for personalised requests (frameCache's largest entry). A held PNG costs 2.5×
 * its frame (the WASM encoder's heap, which stays grown), so 16 MB held beside a wide canvas's
 * strips would not fit; streamed PNGs decode to the same pixels (their bytes differ).
 */
export const STREAMED_PNG_FRAME_BYTES = 6 * MB;

/** Whether a preview of `size` in `format` is coded as its strips are drawn rather than from a held frame. */
export const streamsPreview = (format: PreviewFormat, size: { width: number; height: number }) =>
  size.width * size.height * 4 > (format === 'png' ? STREAMED_PNG_FRAME_BYTES : STREAMED_JPEG_FRAME_BYTES);
/** Largest intermediate render when shrinking via a pyramid level (src/engine/preview.ts). */
const MAX_INTERMEDIATE_PIXELS = 16_000_000;

/**
 * Strip working set: a floor plus bytes per canvas column (a layer's band is a full canvas row).
 * Measured live + WASM (JS heap + ArrayBuffers after GC, docs/memory.md) 38–44, 57–59 and
 * 65–74 MB for canvases 2,500, 5,000 and 10,000 px wide; this line lies above them (50, 60, 80 MB).
 */
export const STRIP_FLOOR_BYTES = 40 * MB;
export const STRIP_BYTES_PER_COLUMN = 4 * 1024;

/** The strip working set of a canvas `canvasWidth` px wide drawn in strips. */
export const stripWorkingSet = (canvasWidth: number) => STRIP_FLOOR_BYTES + canvasWidth * STRIP_BYTES_PER_COLUMN;

/**
 * What a print PDF page plans at its peak: its canvas is the template at full size, always drawn
 * in strips of 4 MB of rows (src/engine/pdf/document.ts), each encoded and written before the next;
 * the same working set as a preview's strips (measured: the 10,000² page 45–61 MB live + WASM in
 * Node against this line's 80 MB).
 */
export const printPageMemory = (template: { width: number }) => stripWorkingSet(template.width);

/**
 * Bytes a held frame costs per frame byte: the frame, and for PNG @jsquash's WASM encoder heap
 * (its copy of the frame and its output), which stays grown for the isolate's life, so it counts
 * beside the next request's strips too; our JPEG encoder codes from the frame with a small heap
 * (measured from the 10,000² template at 2,000²: PNG 78–86 MB live + WASM, JPEG 45–48 MB; a
 * 10,000 × 400 JPEG at full size, its 16 MB frame held beside 10,000 px wide strips: 56–71 MB).
 */
const HELD_FRAME_FACTOR = { jpg: 1, png: 2.5 } as const;

/** Bytes a decoder holds per decoded pixel: its heap and the RGBA copy handed to JS. */
export const DECODE_BYTES_PER_PIXEL = 8;

export type PreviewFormat = 'jpg' | 'png';

/**
 * The farthest (output px) an upscaled preview's kernels read: layer effects and mask feathers
 * reach their size times the scale, and drawing them costs tiles grown by that reach on every
 * side (composite/effects.ts: tiles of 2,048 − 2·reach px, so at 512 px each tile's arrays are 4×
 * its area, near 1,000 px 64×; a 250 px shadow at 4× took 53 s, a 1,000 px feather at 50× 9 s:
 * session 19 fuzz). Past it the template is drawn at the scale where they reach this far, never
 * below 1, and the frame's resize enlarges it to the output: the exact composite's detail is all
 * the output has (issue 25 §1, "a lower internal resolution where the output does not need
 * more"); only vector edges and text are drawn less finely than the output could show.
 */
export const UPSCALED_REACH = 512;

/**
 * The scale a preview renders at for box scale `s` (preview.ts's rule): shrinking, the pyramid
 * level at or above s when it stays within 16 MP, else s; enlarging, s unless the template's
 * kernels would read past UPSCALED_REACH there.
 */
export function previewRenderScale(template: { width: number; height: number; layers?: LayerNode[] }, s: number, optimizePreview = false, showsHidden = true): number {
  if (s > 1) {
    const reach = template.layers ? templateReach(template.layers, showsHidden) : 0;
    return reach * s > UPSCALED_REACH ? Math.max(1, UPSCALED_REACH / reach) : s;
  }
  if (s === 1 || optimizePreview) return s;
  const level = 2 ** -Math.floor(Math.log2(1 / s));
  return template.width * template.height * level * level <= MAX_INTERMEDIATE_PIXELS ? level : s;
}

export interface PreviewMemory {
  /** The held frame with its encoder (0 when coded as drawn). */
  frame: number;
  /** The canvas: whole, or the strip working set. */
  canvas: number;
  total: number;
  /** Whether the frame is coded as its strips are drawn. */
  streamed: boolean;
}

/**
 * What a preview of `template` into `box` (boxScale's output) needs at its peak, before the coded
 * bytes (counted as they grow: codedBytesLimit).
 */
export function previewMemory(
  template: { width: number; height: number; layers?: LayerNode[] },
  box: { s: number; width: number; height: number },
  options: { format: PreviewFormat; optimizePreview?: boolean; showsHidden?: boolean },
): PreviewMemory {
  const scale = previewRenderScale(template, box.s, options.optimizePreview, options.showsHidden);
  const canvasWidth = Math.max(1, Math.round(template.width * scale));
  const canvasHeight = Math.max(1, Math.round(template.height * scale));
  const canvasBytes = canvasWidth * canvasHeight * 4;
  // In strips: the strip working set; whole: the canvas, the layer at that scale and the resized frame.
  const canvas = canvasBytes > STRIP_CANVAS_BYTES ? stripWorkingSet(canvasWidth) : canvasBytes * 3;
  const streamed = streamsPreview(options.format, box);
  const frame = streamed ? 0 : box.width * box.height * 4 * HELD_FRAME_FACTOR[options.format];
  return { frame, canvas, total: canvas + frame, streamed };
}

/** The coded bytes a streamed preview may grow to: they are held twice at the end, beside the working set. */
export function codedBytesLimit(memory: PreviewMemory): number {
  return Math.max(0, Math.floor((REQUEST_MEMORY_BUDGET - memory.total) / 2));
}

const overBudget = (path: string) => [{ path, reason: `over the ${REQUEST_MEMORY_BUDGET / MB} MB memory budget` }];

/**
 * Refuses (Unprocessable: 422) a preview that cannot fit the budget; otherwise its memory plan
 * (for the coded-bytes limit). Call right after boxScale, before anything is fetched.
 */
export function checkPreviewMemory(
  template: { width: number; height: number; layers?: LayerNode[] },
  box: { s: number; width: number; height: number },
  options: { format: PreviewFormat; optimizePreview?: boolean; showsHidden?: boolean },
): PreviewMemory {
  const memory = previewMemory(template, box, options);
  if (memory.total <= REQUEST_MEMORY_BUDGET) return memory;
  const why = memory.streamed
    ? `drawing it from a canvas ${Math.round(template.width * previewRenderScale(template, box.s, options.optimizePreview, options.showsHidden))} px wide needs about ${Math.ceil(memory.canvas / MB)} MB`
    : `drawing and holding its frame needs about ${Math.ceil(memory.total / MB)} MB`;
  throw unprocessable(
    `A ${box.width}×${box.height} px ${options.format === 'png' ? 'PNG' : 'JPEG'} preview cannot be made within the ${REQUEST_MEMORY_BUDGET / MB} MB a request may use: ${why}. Ask for a smaller size.`,
    overBudget('size'),
  );
}

/**
 * Shrinks the engine's per-isolate caches so that what they hold and a request's planned peak
 * (`PreviewMemory.total`) stay within REQUEST_MEMORY_BUDGET together. The caches may hold 66 MB
 * (src/engine/cache/index.ts) and a 5,000² preview plans about 60 MB: both at once would pass the
 * budget. makeRoom keeps caches + its argument within 64 MB, so it is asked for the plan less
 * the 32 MB between the two; a plan up to 30 MB (every 800² preview) evicts nothing. Whether it
 * was asked (the plan is large: the engine's kept scratch arrays go too, frame.ts makeRoomForFrame).
 */
export function makeRoomForRequest(total: number): boolean {
  const over = total - (REQUEST_MEMORY_BUDGET - 64 * MB);
  if (over > 0) makeRoom(over);
  return over > 0;
}

/** Refuses (422) coded output that has grown past `limit` bytes (a streamed encoder's check, as the bytes come). */
export function checkCodedBytes(bytes: number, limit: number): void {
  if (bytes <= limit) return;
  throw unprocessable(
    `The preview's coded image grew past ${Math.floor(limit / MB)} MB, more than fits the ${REQUEST_MEMORY_BUDGET / MB} MB a request may use beside drawing it. Ask for a smaller size or JPEG.`,
    overBudget('size'),
  );
}

/** Largest decode (pixels) that fits the budget. */
export const MAX_DECODE_PIXELS = Math.floor(REQUEST_MEMORY_BUDGET / DECODE_BYTES_PER_PIXEL);

/** Refuses (422 naming `path`) a picture whose decode (`pixels` decoded, from its header) would not fit the budget. */
export function checkDecodeMemory(pixels: number, path: string): void {
  if (pixels <= MAX_DECODE_PIXELS) return;
  throw unprocessable(
    `The image at ${path} cannot be used: decoding ${(pixels / 1e6).toFixed(1)} MP needs about ${Math.ceil((pixels * DECODE_BYTES_PER_PIXEL) / MB)} MB; a request may use ${REQUEST_MEMORY_BUDGET / MB} MB.`,
    overBudget(path),
  );
}
