import type { Layer, Psd } from 'ag-psd';

/** Layers in the file's record order (bottom first); null where a group's closing divider sits. */
export function fileOrder(layers: Layer[]): Array<Layer | null> {
  const out: Array<Layer | null> = [];
  for (const layer of layers) {
    if (layer.children) out.push(null, ...fileOrder(layer.children), layer);
    else out.push(layer);
  }
  return out;
}

/**
 * Tagged blocks whose length is 8 bytes in a PSB: Adobe's list, plus 'cinf' as ag-psd reads it.
 * One list for every walker, so they agree on where a block ends.
 */
export const LARGE_KEYS = new Set(['LMsk', 'Lr16', 'Lr32', 'Layr', 'Mt16', 'Mt32', 'Mtrn', 'Alph', 'FMsk', 'lnk2', 'FEid', 'FXid', 'PxSD', 'cinf']);

/**
 * Where the layer records start: the signed layer count that opens the layer info. In 8-bit
 * documents it is the layer info inside the layer and mask section; 16- and 32-bit documents
 * leave that empty and keep the same structure in a tagged block ('Lr16', 'Lr32') after the
 * global layer mask info. Returns the offset of the count, or undefined when there are no layers.
 */
export function findLayerInfo(bytes: Uint8Array): number | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const large = view.getUint16(4) === 2;
  const u = (at: number) => (large ? view.getUint32(at) * 2 ** 32 + view.getUint32(at + 4) : view.getUint32(at));
  const size = large ? 8 : 4;
  try {
    let at = 26;
    at += 4 + view.getUint32(at); // colour mode data
    at += 4 + view.getUint32(at); // image resources
    const sectionLength = u(at);
    if (sectionLength === 0) return undefined;
    at += size;
    const sectionEnd = at + sectionLength;
    const infoLength = u(at);
    at += size;
    if (infoLength > 0) return at;
    at += 4 + view.getUint32(at); // global layer mask info
    for (const block of taggedBlocks(bytes, at, sectionEnd)) {
      if ((block.key === 'Lr16' || block.key === 'Lr32' || block.key === 'Layr') && block.length >= 2) return block.data;
    }
  } catch {
    // A section we cannot walk: no layers found (ag-psd, which reads it fully, decides).
  }
  return undefined;
}

/**
 * The tagged blocks ('8BIM' / '8B64', key, length, data) from `at` until `end` (and the bytes'
 * end), as the global additional layer information lays them out: `keyAt` where the 4-byte key
 * lies, `data` where its data starts. A length past the bytes throws RangeError on the next read.
 */
export function* taggedBlocks(bytes: Uint8Array, at: number, end: number): Generator<{ key: string; keyAt: number; data: number; length: number }> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const large = view.getUint16(4) === 2;
  const u = (at: number) => (large ? view.getUint32(at) * 2 ** 32 + view.getUint32(at + 4) : view.getUint32(at));
  const sig = (at: number) => String.fromCharCode(bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]);
  while (at + 12 <= end && at + 12 <= bytes.length) {
    const s = sig(at);
    if (s !== '8BIM' && s !== '8B64') {
      at++; // some writers leave padding between blocks
      continue;
    }
    const key = sig(at + 4);
    const wide = s === '8B64' || (large && LARGE_KEYS.has(key));
    const length = wide ? u(at + 8) : view.getUint32(at + 8);
    const data = at + (wide ? 16 : 12);
    yield { key, keyAt: at + 4, data, length };
    at = data + length;
  }
}

/**
 * Where each layer record's tagged blocks lie (file order, bottom first): after its mask data,
 * blending ranges and Pascal name (padded to 4), until the record's extra data ends. Throws past
 * the bytes' end.
 */
export function* recordBlocks(bytes: Uint8Array): Generator<{ index: number; at: number; end: number }> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (const { index, extraAt, extraLength } of layerRecords(bytes)) {
    let at = extraAt + 4 + view.getUint32(extraAt);
    at += 4 + view.getUint32(at);
    if (at >= bytes.length) throw new RangeError('a layer record past the end');
    at += (bytes[at] + 4) & ~3;
    yield { index, at, end: extraAt + extraLength };
  }
}

/**
 * Group ends that close no group, by where their section divider type lies. ag-psd builds the
 * tree from the top record down, a group opening at its folder record (type 1 or 2) and closing
 * at its bounding divider (type 3); a divider with no group open made it fail ("Cannot read
 * properties of undefined"), a 422 that named nothing. Photoshop writes none; such a divider is
 * read as nothing (parsePsd shows it to ag-psd as a plain layer, then drops it), so the layers
 * around it keep their places. Records that cannot be walked give none (ag-psd decides).
 */
export function strayGroupEnds(bytes: Uint8Array): Array<{ index: number; typeAt: number }> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dividers: Array<{ index: number; typeAt: number; type: number }> = [];
  try {
    for (const { index, at, end } of recordBlocks(bytes)) {
      let divider: { index: number; typeAt: number; type: number } | undefined;
      for (const block of taggedBlocks(bytes, at, end)) {
        // The last of a record's 'lsct' and 'lsdk' blocks is the one ag-psd keeps.
        if ((block.key === 'lsct' || block.key === 'lsdk') && block.length >= 4 && block.data + 4 <= bytes.length) {
          divider = { index, typeAt: block.data, type: view.getUint32(block.data) };
        }
      }
      if (divider) dividers.push(divider);
    }
  } catch (e) {
    if (e instanceof RangeError) return [];
    throw e;
  }
  const stray: Array<{ index: number; typeAt: number }> = [];
  let open = 0;
  for (let i = dividers.length - 1; i >= 0; i--) {
    const { index, typeAt, type } = dividers[i];
    if (type === 1 || type === 2) open++;
    else if (type === 3 && open > 0) open--;
    else if (type === 3) stray.push({ index, typeAt });
  }
  return stray;
}

/** A layer mask's density and feather parameters, as ag-psd names them (density 0..1, feather in px). */
export interface MaskParameters {
  userMaskDensity?: number;
  userMaskFeather?: number;
  vectorMaskDensity?: number;
  vectorMaskFeather?: number;
}

/**
 * The layer records of a PSD in file order (bottom first, group dividers included): each one's
 * channel ids and where its extra data (mask data, blending ranges, name, tagged blocks) starts
 * and how long it is. One walk for every reader of what ag-psd drops. Throws past the bytes' end.
 */
export function* layerRecords(bytes: Uint8Array): Generator<{ index: number; channelIds: number[]; extraAt: number; extraLength: number }> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const large = view.getUint16(4) === 2;
  const start = findLayerInfo(bytes);
  if (start === undefined) return;
  let at = start;
  const count = Math.abs(view.getInt16(at));
  at += 2;
  for (let index = 0; index < count; index++) {
    at += 16; // the rectangle
    const channels = view.getUint16(at);
    const channelIds: number[] = [];
    for (let c = 0; c < channels; c++) channelIds.push(view.getInt16(at + 2 + c * (large ? 10 : 6)));
    at += 2 + channels * (large ? 10 : 6) + 12; // channel list; '8BIM', blend key, opacity, clipping, flags, filler
    // A record's length can claim more than the file holds (a length of 570 M in a 2 KB file had
    // readLayerRecords step 570 M bytes one at a time, ~20 s): every reader stops at the bytes' end.
    const extraLength = Math.min(view.getUint32(at), bytes.length - at - 4);
    at += 4;
    yield { index, channelIds, extraAt: at, extraLength };
    at += extraLength;
  }
}

/**
 * Mask blocks that hold their parameters straight after the flags, by layer record (file order,
 * bottom first). The 18-byte real user mask header sits between the flags and the parameters only
 * when the layer stores a real user mask channel (-3); without one, a pixel mask and a vector mask
 * with a feather and a density make a block of 36 bytes or more that holds no such header
 * (psd-tools #693, PR #704, on its mask-parameters-no-real-channel.psd). ag-psd decides by the
 * length alone, reads the parameters as a real mask's rectangle and refuses the file ("Invalid
 * realMask size") or keeps a mask that is not there.
 */
export function parameterMaskBlocks(bytes: Uint8Array): Map<number, { flagsAt: number; params: MaskParameters }> {
  const out = new Map<number, { flagsAt: number; params: MaskParameters }>();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    for (const { index, channelIds, extraAt } of layerRecords(bytes)) {
      const length = view.getUint32(extraAt);
      const flagsAt = extraAt + 4 + 17;
      if (!channelIds.includes(-3) && length >= 36 && bytes[flagsAt] & 16) {
        const bits = bytes[flagsAt + 1];
        const params: MaskParameters = {};
        let p = flagsAt + 2;
        if (bits & 1) params.userMaskDensity = bytes[p++] / 255;
        if (bits & 2) {
          params.userMaskFeather = view.getFloat64(p);
          p += 8;
        }
        if (bits & 4) params.vectorMaskDensity = bytes[p++] / 255;
        if (bits & 8) {
          params.vectorMaskFeather = view.getFloat64(p);
          p += 8;
        }
        if (p <= extraAt + 4 + length) out.set(index, { flagsAt, params });
      }
    }
  } catch {
    // Records we cannot walk: ag-psd, which reads them fully, decides.
  }
  return out;
}

/**
 * ag-psd's reading of a PSD (`read`), with the mask blocks of parameterMaskBlocks read right: for
 * the read, each such block shows ag-psd an empty real mask header and no parameters (its bytes
 * are put back after), then the layer's mask takes the parameters and loses the real mask.
 */
export function readWithParameterMasks(bytes: Uint8Array, read: () => Psd): Psd {
  const blocks = parameterMaskBlocks(bytes);
  if (!blocks.size) return read();
  const saved = [...blocks.values()].map(({ flagsAt }) => [flagsAt, bytes.slice(flagsAt, flagsAt + 19)] as const);
  for (const [flagsAt] of saved) {
    bytes[flagsAt] &= ~16;
    bytes.fill(0, flagsAt + 1, flagsAt + 19);
  }
  let psd: Psd;
  try {
    psd = read();
  } finally {
    for (const [flagsAt, original] of saved) bytes.set(original, flagsAt);
  }
  fileOrder(psd.children ?? []).forEach((layer, i) => {
    const block = blocks.get(i);
    if (!layer || !block || !layer.mask) return;
    delete layer.realMask;
    Object.assign(layer.mask, block.params);
  });
  return psd;
}
