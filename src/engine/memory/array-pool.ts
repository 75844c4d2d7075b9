/**
 * Free ArrayBuffers kept to be handed out again (issue 25 §1, §3): arrays made anew for every
 * strip, blob or request were most of the garbage workerd's process kept resident until V8 next
 * collected it. One pool serves a frame's layer surfaces from strip to strip (compiled/store.ts
 * `StripBuffers`), a compile's packed blobs (compiled/blob.ts `Packer`) and the personalised
 * region canvases (frame.ts).
 *
 * - `take` hands out the smallest free buffer that holds the bytes asked (a larger one is kept
 *   for a larger take), or none: the owner makes new buffers itself, each with its own sizing
 *   (1/32 to spare, 64 KB steps, the exact length), and gives them to the pool when done.
 * - `give` keeps a buffer within the caps (bytes, and a count when set), dropping the oldest
 *   free ones to make room: the newest is the likeliest to fit what comes next.
 * - `makeRoom` drops free buffers, oldest first, before a new one is made that the owner will
 *   give back: one no free buffer fits replaces those too small (docs/memory.md).
 */
import { freeNow } from '../compiled/free';

export class ArrayPool {
  private readonly free: ArrayBuffer[] = [];
  private freeBytes = 0;

  /**
   * `bytes`: the most it keeps free, in all; `count`: the most buffers (no bound by default);
   * `freeDropped`: a free buffer dropped to make room is freed now (compiled/free.ts), not left to
   * the collector, for an owner none of whose views outlive a give (StripBuffers' surfaces).
   */
  constructor(private readonly caps: { bytes: number; count?: number; freeDropped?: boolean }) {}

  /** Bytes of the free buffers kept now. */
  get bytes(): number {
    return this.freeBytes;
  }

  /** The smallest free buffer of at least `bytes`, now the caller's; undefined when none is that long. */
  take(bytes: number): ArrayBuffer | undefined {
    let best = -1;
    for (let i = 0; i < this.free.length; i++) {
      const size = this.free[i]!.byteLength;
      if (size >= bytes && (best < 0 || size < this.free[best]!.byteLength)) best = i;
    }
    if (best < 0) return undefined;
    const buffer = this.free.splice(best, 1)[0]!;
    this.freeBytes -= buffer.byteLength;
    return buffer;
  }

  /**
   * Keeps `buffer` (a view's, as it comes) for a later take, the oldest free ones dropped to make
   * room; one larger than the cap, empty (detached), shared or already kept is not. Give only
   * what nobody reads or writes any more.
   */
  give(buffer: ArrayBufferLike): void {
    if (!(buffer instanceof ArrayBuffer) || buffer.byteLength === 0 || buffer.byteLength > this.caps.bytes || this.free.includes(buffer)) return;
    this.makeRoom(buffer.byteLength, 1);
    this.free.push(buffer);
    this.freeBytes += buffer.byteLength;
  }

  /**
   * Drops free buffers, oldest first, until `bytes` more in `count` more buffers fit under the
   * caps; whether they fit then (a `bytes` above the cap never does, and drops them all).
   */
  makeRoom(bytes: number, count = 1): boolean {
    const fits = () => this.freeBytes + bytes <= this.caps.bytes && this.free.length + count <= (this.caps.count ?? Infinity);
    while (this.free.length && !fits()) {
      const dropped = this.free.shift()!;
      this.freeBytes -= dropped.byteLength;
      if (this.caps.freeDropped) freeNow([new Uint8Array(dropped)]);
    }
    return fits();
  }

  /** Empties the pool: its free buffers, for the caller to free now (compiled/free.ts) or leave to the collector. */
  clear(): ArrayBuffer[] {
    this.freeBytes = 0;
    return this.free.splice(0);
  }
}
