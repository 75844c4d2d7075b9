/**
 * Gives a request's dead temporary arrays back now (issue 25 §1). workerd collects ArrayBuffers
 * only when its JS heap fills, and the effects allocate few JS objects beside their float arrays:
 * a template with six size-250 shadows left 394 MB of dead arrays in the process before the next
 * collection, g21052 (one such shadow, a bevel, a stroke) 100 MB. Each array dropped here is
 * detached (compiled/free.ts freeNow), so its pages go back at once.
 *
 * Drop only an array made for this call and read by nobody after it: never a view of the kernels'
 * memory, a Scratch slot, or anything a cache or a caller may still hold. A dropped array reads as
 * empty, so a mistake shows as wrong output at once (the A/B and the tests), never as a late one.
 */
import { freeNow } from '../compiled/free';

/** Arrays below this are left to the collector: freeing them gains little and costs a call each. */
export const DROP_MIN_BYTES = 1 << 16;

/** Buffers kept to be reused (a Scratch slot, a paint scratch): drop leaves them be. */
const kept = new WeakSet<ArrayBufferLike>();

/** Marks `array`'s buffer as one kept for reuse, which drop never frees; the array itself. */
export function keep<T extends ArrayBufferView>(array: T): T {
  kept.add(array.buffer);
  return array;
}

/** Drops an array kept for reuse whose owner is done with it (Scratch.clear). */
export function release(array: ArrayBufferView): void {
  kept.delete(array.buffer);
  drop(array);
}

let dropping = true;

/** Turns dropping off (true: on), for tests that hold the output to what it was without it. */
export function useDrops(on: boolean): void {
  dropping = on;
}

/** Buffers a draw made for itself (ownHere): dropOwn frees these and no other. */
const own = new WeakSet<ArrayBufferLike>();

/**
 * Marks `array` as made by its draw for itself alone, not handed out by a cache or a pool (the
 * compositor's layer contents, which may be either): dropOwn may free it once the draw is done.
 */
export function ownHere<T extends ArrayBufferView | null | undefined>(array: T): T {
  if (array) own.add(array.buffer);
  return array;
}

/** drop for the arrays ownHere marked; the others (cached, pooled, lent) are left as they are. */
export function dropOwn(...arrays: (ArrayBufferView | null | undefined)[]): void {
  for (const array of arrays) if (array && own.has(array.buffer)) drop(array);
}

/** Bytes dropped so far (tests and the bench read it; reset it to measure). */
export const dropped = { bytes: 0, arrays: 0 };

/** Frees each array's buffer now (see above); one kept, small, detached or a WebAssembly memory's is left. */
export function drop(...arrays: (ArrayBufferView | null | undefined)[]): void {
  if (!dropping) return;
  for (const array of arrays) {
    const buffer = array?.buffer;
    if (!buffer || !(buffer instanceof ArrayBuffer) || buffer.byteLength < DROP_MIN_BYTES || kept.has(buffer) || (buffer as { detached?: boolean }).detached) continue;
    const bytes = buffer.byteLength; // read before it is freed: a detached buffer's is 0
    try {
      freeNow([array as Uint8Array]);
    } catch {
      continue; // a WebAssembly memory's buffer cannot be detached: it stays as it was
    }
    dropped.bytes += bytes;
    dropped.arrays++;
  }
}
