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
  const sig = (at: number) => String.fromCharCode(bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]);
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
    while (at + 12 <= sectionEnd && at + 12 <= bytes.length) {
      const s = sig(at);
      if (s !== '8BIM' && s !== '8B64') {
        at++; // some writers leave padding between blocks
        continue;
      }
      const key = sig(at + 4);
      const wide = s === '8B64' || (large && LARGE_KEYS.has(key));
      const length = wide ? u(at + 8) : view.getUint32(at + 8);
      const data = at + (wide ? 16 : 12);
      if ((key === 'Lr16' || key === 'Lr32' || key === 'Layr') && length >= 2) return data;
      at = data + length;
    }
  } catch {
    // A section we cannot walk: no layers found (ag-psd, which reads it fully, decides).
  }
  return undefined;
}
