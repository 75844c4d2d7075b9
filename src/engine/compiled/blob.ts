/**
 * Raw pixel blobs in R2, deflate-raw compressed with the platform's CompressionStream.
 * No header: a blob's size follows from the layer bounds kept in the tree.
 */

export async function deflate(data: Uint8Array): Promise<Uint8Array> {
  return pipe(data, new CompressionStream('deflate-raw'));
}

export async function inflate(
  data: ReadableStream<Uint8Array> | Uint8Array,
  expected?: number,
  format: 'deflate' | 'deflate-raw' = 'deflate-raw',
): Promise<Uint8Array> {
  const ds = new DecompressionStream(format);
  const source = data instanceof Uint8Array ? new Blob([data]).stream() : data;
  return collect(source.pipeThrough(ds), expected);
}

async function pipe(data: Uint8Array, transform: TransformStream<Uint8Array, Uint8Array>): Promise<Uint8Array> {
  const writer = transform.writable.getWriter();
  const done = collect(transform.readable);
  await writer.write(data);
  await writer.close();
  return done;
}

async function collect(stream: ReadableStream<Uint8Array>, expected?: number): Promise<Uint8Array> {
  const reader = stream.getReader();
  if (expected !== undefined) {
    // Known size: one allocation, no concatenation.
    const out = new Uint8Array(expected);
    let at = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      out.set(value.subarray(0, Math.max(0, expected - at)), at);
      at += value.length;
    }
    if (at !== expected) throw new Error(`compiled blob: expected ${expected} bytes, got ${at}`);
    return out;
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    total += value.length;
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

export async function putBlob(bucket: R2Bucket, key: string, raw: Uint8Array): Promise<void> {
  await bucket.put(key, await deflate(raw));
}

export async function getBlob(bucket: R2Bucket, key: string, expected: number): Promise<Uint8Array | null> {
  const obj = await bucket.get(key);
  if (!obj) return null;
  return inflate(obj.body, expected);
}
