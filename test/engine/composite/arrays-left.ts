/**
 * Counts the typed arrays of 64 KB and more a draw makes (not views of a buffer made elsewhere:
 * the kernels' memory, subarrays; each buffer once), and the bytes of those it leaves undropped
 * (not detached) when it is done: what workerd would hold until it next collects (issue 25 §1).
 */
type Counted = 'Float32Array' | 'Uint8ClampedArray';

export async function arraysLeft(kind: Counted, draw: () => Promise<unknown>): Promise<{ made: number; left: number }> {
  const Real = globalThis[kind];
  const buffers: ArrayBuffer[] = [];
  const Counting = class extends (Real as Float32ArrayConstructor) {
    constructor(...args: unknown[]) {
      super(...(args as [number]));
      if (!(args[0] instanceof ArrayBuffer) && this.buffer.byteLength >= 1 << 16) buffers.push(this.buffer as ArrayBuffer);
    }
  };
  Object.assign(globalThis, { [kind]: Counting });
  try {
    await draw();
  } finally {
    Object.assign(globalThis, { [kind]: Real });
  }
  const left = buffers.reduce((n, b) => n + ((b as { detached?: boolean }).detached ? 0 : b.byteLength), 0);
  return { made: buffers.length, left };
}
