import { describe, expect, it } from 'vitest';
import { byobReader, readInto } from '../../src/lib/read-into';

const chunksOf = (...chunks: Uint8Array[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
/** A byte stream (what workerd's request bodies and compression streams are). */
const bytesOf = (data: Uint8Array) => new Request('http://x/', { method: 'POST', body: data }).body!;
const data = (n: number) => new Uint8Array(n).map((_, i) => (i * 7) % 251);

describe('readInto', () => {
  it('tells a byte stream from a stream of chunks', () => {
    expect(byobReader(bytesOf(data(4)))).toBeDefined();
    expect(byobReader(chunksOf(data(4)))).toBeUndefined();
  });

  it('reads a byte stream into the array itself, not a copy, to its end', async () => {
    const into = new Uint8Array(200_000);
    const read = await readInto(bytesOf(data(200_000)), into);
    expect(read).toEqual(data(200_000));
    expect(read.buffer.byteLength).toBe(200_000); // the same memory, handed back
    expect(into.buffer.byteLength).toBe(0); // handed over (detached)
  });

  it('reads into a view that starts inside its buffer', async () => {
    const into = new Uint8Array(new ArrayBuffer(1000), 100, 600);
    const read = await readInto(bytesOf(data(500)), into);
    expect(read).toEqual(data(500));
    expect(read.byteOffset).toBe(100);
  });

  it('reads shorter or longer streams than the array, of either kind', async () => {
    const whole = new Uint8Array(70_000);
    whole.set(data(30_000));
    whole.set(data(40_000), 30_000);
    for (const stream of [() => bytesOf(whole), () => chunksOf(data(30_000), data(40_000))]) {
      expect(await readInto(stream(), new Uint8Array(100_000))).toEqual(whole); // shorter
      expect(await readInto(stream(), new Uint8Array(70_000))).toEqual(whole); // exact: a probe finds the end
      expect(await readInto(stream(), new Uint8Array(1000))).toEqual(whole); // grown
      expect(await readInto(stream(), new Uint8Array(0))).toEqual(whole);
    }
    expect(await readInto(chunksOf(), new Uint8Array(8))).toEqual(new Uint8Array(0));
  });

  it('gives null past the limit, the rest left for the caller', async () => {
    const stream = chunksOf(data(10), data(10), data(10));
    expect(await readInto(stream, new Uint8Array(10), 15)).toBeNull();
    const rest = stream.getReader(); // released: the caller drains it
    expect((await rest.read()).value).toEqual(data(10));
    expect(await readInto(bytesOf(data(20)), new Uint8Array(10), 15)).toBeNull();
    expect(await readInto(bytesOf(data(20)), new Uint8Array(10), 20)).toEqual(data(20));
  });
});
