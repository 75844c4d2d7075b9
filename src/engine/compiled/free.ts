/**
 * Gives arrays' memory back now instead of whenever V8 next collects: each one's ArrayBuffer is
 * transferred to a new empty one (ES2024 `ArrayBuffer.prototype.transfer`), which detaches it and
 * releases its backing store, so the runtime can reuse the pages at once. Every view of a freed
 * array reads as empty from then on: pass only arrays that are whole buffers nobody reads again.
 * Why: a compile's 20 MB of band buffers, dead once it returned, stayed in workerd's process
 * through the upload's last step (storing the PSD), where the first 10,000² upload peaked.
 */
export function freeNow(arrays: Iterable<ArrayBufferView | null | undefined>): void {
  for (const array of arrays) {
    const buffer = array?.buffer as (ArrayBuffer & { transfer?: (length?: number) => ArrayBuffer; detached?: boolean }) | undefined;
    if (buffer && !buffer.detached && !(buffer instanceof SharedArrayBuffer)) buffer.transfer?.(0);
  }
}
