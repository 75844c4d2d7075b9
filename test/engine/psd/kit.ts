/** Small pieces the PSD reader's tests share. */
import { writePsdUint8Array, type Layer, type Psd } from 'ag-psd';
import { expect } from 'vitest';
import { Unprocessable } from '../../../src/engine/errors';

/** An opaque black-to-white gradient as ag-psd writes an effect's stops. */
export const blackToWhite = {
  colorStops: [
    { color: { r: 0, g: 0, b: 0 }, location: 0, midpoint: 0.5 },
    { color: { r: 255, g: 255, b: 255 }, location: 1, midpoint: 0.5 },
  ],
  opacityStops: [
    { opacity: 1, location: 0, midpoint: 0.5 },
    { opacity: 1, location: 1, midpoint: 0.5 },
  ],
};

/**
 * An 8 × 8 document of one opaque white 4 × 4 layer `name` at (2, 2) carrying `effects`: where
 * the layer-record tests plant an effects block to find in the bytes.
 */
export function whiteSquareWith(name: string, effects: object): Psd {
  const white = { width: 4, height: 4, data: new Uint8ClampedArray(64).fill(255) };
  return { width: 8, height: 8, children: [{ name, left: 2, top: 2, imageData: white, effects }] } as unknown as Psd;
}

/**
 * A 4 × 1 document, a red layer over white with a white pixel mask carrying `params` (mask
 * parameters: densities, feathers) and a vector mask over its left half: the layout of psd-tools'
 * mask-parameters-no-real-channel.psd (#693) when no real mask (-3) is given in `extra`.
 */
export const MASKED_WIDTH = 4;
const maskedWhite = { width: MASKED_WIDTH, height: 1, data: new Uint8ClampedArray(MASKED_WIDTH * 4).fill(255) };
export function maskedRow(params: object, extra: Partial<Layer> = {}): Uint8Array {
  const W = MASKED_WIDTH;
  const red = { width: W, height: 1, data: Uint8ClampedArray.from({ length: W * 4 }, (_, i) => [255, 0, 0, 255][i % 4]) };
  const knots = [[0, 0], [2, 0], [2, 1], [0, 1]].map(([x, y]) => ({ linked: true, points: [x, y, x, y, x, y] }));
  return writePsdUint8Array({
    width: W,
    height: 1,
    children: [
      { name: 'Background', left: 0, top: 0, imageData: maskedWhite },
      {
        name: 'heart',
        left: 0,
        top: 0,
        imageData: red,
        mask: { left: 0, top: 0, right: W, bottom: 1, defaultColor: 255, imageData: maskedWhite, ...params },
        vectorMask: { paths: [{ open: false, operation: 'combine', fillRule: 'even-odd', knots }] },
        ...extra,
      } as Layer,
    ],
  });
}

/**
 * A document written by ag-psd with its Shape Burst strokes (gradient `style: 'shapeburst'`)
 * encoded as Photoshop writes them, 'GrdT' 'shapeburst' (a 10-character enum value; psd-tools'
 * vector.py and Photopea's gradient types name it so), which ag-psd's encoder refuses. Each such
 * stroke is written Linear with its gradient named MARK, then in the bytes its 'Lnr ' (a 0 length
 * and four characters) becomes 'shapeburst' (length 10, 6 bytes more) and its name loses three
 * characters (6 bytes fewer): the effects block keeps its length, so no enclosing length moves.
 */
export function writeShapeBurst(psd: Psd): Uint8Array {
  type Stroke = { gradient?: { style?: string; name?: string } };
  const swapped: Array<[Stroke, Stroke['gradient']]> = [];
  const walk = (layers: Layer[] = []) =>
    layers.forEach((l) => {
      for (const st of (l.effects?.stroke ?? []) as Stroke[]) {
        if (st.gradient?.style !== 'shapeburst') continue;
        swapped.push([st, st.gradient]);
        st.gradient = { ...st.gradient, style: 'linear', name: MARK };
      }
      walk(l.children);
    });
  walk(psd.children);
  let bytes: Uint8Array;
  try {
    bytes = writePsdUint8Array(psd, { generateThumbnail: false });
  } finally {
    for (const [st, g] of swapped) st.gradient = g;
  }
  const ascii = (t: string) => [...t].map((c) => c.charCodeAt(0));
  const utf16 = (t: string) => [...t].flatMap((c) => [0, c.charCodeAt(0)]);
  const find = (pattern: number[], from: number, back = false) => {
    for (let i = from; back ? i >= 0 : i + pattern.length <= bytes.length; i += back ? -1 : 1) if (pattern.every((b, k) => bytes[i + k] === b)) return i;
    return -1;
  };
  const name = [...ascii('Nm  TEXT'), 0, 0, 0, MARK.length + 1, ...utf16(MARK), 0, 0];
  const linear = [...ascii('GrdT'), 0, 0, 0, 0, ...ascii('Lnr ')];
  for (let at = find(name, 0); at >= 0; at = find(name, at)) {
    // ag-psd writes a gradient content's 'Type' before its 'Grad' (where the name is).
    const type = find(linear, at, true);
    if (type < 0) throw new Error('no Linear style before the marked gradient');
    const short = MARK.length - 3;
    const out = new Uint8Array(bytes.length);
    out.set(bytes.subarray(0, type + 4));
    let o = type + 4;
    for (const b of [0, 0, 0, 10, ...ascii('shapeburst')]) out[o++] = b;
    out.set(bytes.subarray(type + linear.length, at), o);
    o += at - type - linear.length;
    for (const b of [...ascii('Nm  TEXT'), 0, 0, 0, short + 1, ...utf16(MARK.slice(0, short)), 0, 0]) out[o++] = b;
    out.set(bytes.subarray(at + name.length), o);
    bytes = out;
  }
  return bytes;
}
const MARK = 'burst~~~';

/** The message of the 422 `run` throws (fails the test when it throws anything else, or nothing). */
export function refusalOf(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(Unprocessable);
    return (e as Error).message;
  }
  throw new Error('not refused');
}
