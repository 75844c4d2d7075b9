/**
 * Where a PSD's bytes come from: whole in memory (tests, small callers), or an R2 object read by
 * ranges, so an upload near the contract's 100 MB need never sit in a 128 MB isolate whole
 * (issue 25 §1: the compile reads the file's structure and then one layer's channels at a time).
 */
export interface PsdSource {
  /** The file's length in bytes. */
  readonly size: number;
  /** `length` bytes from `offset` (both within the file; a short read is a truncated file). */
  read(offset: number, length: number): Promise<Uint8Array>;
}

/** A source over bytes already in memory: reads are views, not copies. */
export function bytesSource(bytes: Uint8Array): PsdSource & { readonly bytes: Uint8Array } {
  return {
    bytes,
    size: bytes.length,
    read: async (offset, length) => bytes.subarray(offset, offset + length),
  };
}

/** A source over a stored R2 object of known size; each read is one ranged get. */
export function r2Source(bucket: R2Bucket, key: string, size: number): PsdSource {
  return {
    size,
    async read(offset, length) {
      if (length <= 0 || offset >= size) return new Uint8Array(0);
      const obj = await bucket.get(key, { range: { offset, length: Math.min(length, size - offset) } });
      if (!obj) throw new Error(`The stored PSD ${key} is gone.`);
      return new Uint8Array(await obj.arrayBuffer());
    },
  };
}

export function isPsdSource(value: Uint8Array | PsdSource): value is PsdSource {
  return !(value instanceof Uint8Array);
}
