import { describe, expect, it } from 'vitest';
import { boundaryOf, bytesOf, MalformedMultipart, parseMultipart, readBody, UploadedPart } from '../../src/dynamic-image/multipart';

const encoder = new TextEncoder();

/** A body as workerd's own Request serialises a FormData, with its boundary. */
async function serialised(form: FormData): Promise<{ body: Uint8Array; boundary: string }> {
  const request = new Request('http://x/', { method: 'POST', body: form });
  const boundary = boundaryOf(request.headers.get('content-type')!)!;
  return { body: new Uint8Array(await request.arrayBuffer()), boundary };
}

const streamOf = (...chunks: Uint8Array[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(c);
      controller.close();
    },
  });

describe('parseMultipart', () => {
  it('reads what FormData serialises: files as views of the body, fields as text, in order', async () => {
    const psd = new Uint8Array(70_000).map((_, i) => (i * 7) % 256);
    psd.set(encoder.encode('\r\n--'), 1000); // looks like a delimiter's start, is not one
    const form = new FormData();
    form.append('file', new File([psd], 'cards/a.psd', { type: 'image/vnd.adobe.photoshop' }));
    form.append('destination', 'Földer');
    form.append('file', new File([new Uint8Array(0)], 'Ünïcode ✓.ttf'));
    const { body, boundary } = await serialised(form);
    const parts = parseMultipart(body, boundary);
    expect(parts.map(([name]) => name)).toEqual(['file', 'destination', 'file']);
    const [first, field, empty] = parts.map(([, v]) => v);
    expect(first).toBeInstanceOf(UploadedPart);
    expect(first).toBeInstanceOf(File);
    expect((first as UploadedPart).name).toBe('cards/a.psd');
    expect((first as UploadedPart).type).toBe('image/vnd.adobe.photoshop');
    const bytes = await bytesOf(first as File);
    expect(bytes).toEqual(psd);
    expect(bytes.buffer).toBe(body.buffer); // a view, not a copy
    expect(field).toBe('Földer');
    expect((empty as UploadedPart).content.length).toBe(0);
    expect((empty as UploadedPart).name).toBe('Ünïcode ✓.ttf');
  });

  it('takes a preamble, transport padding, quoted boundaries and escaped names', () => {
    const body = encoder.encode(
      'preamble\r\n--b"x\r\n' +
        'Content-Disposition: form-data; name="file"; filename="a \\"q\\".psd"\r\n\r\nPSD\r\n' +
        '--b"x  \r\nContent-Disposition: form-data; name=overwrite\r\n\r\ntrue\r\n--b"x--\r\nepilogue',
    );
    const parts = parseMultipart(body, 'b"x');
    expect(parts[0]![0]).toBe('file');
    expect((parts[0]![1] as UploadedPart).name).toBe('a "q".psd');
    expect(new TextDecoder().decode((parts[0]![1] as UploadedPart).content)).toBe('PSD');
    expect(parts[1]).toEqual(['overwrite', 'true']);
    expect(boundaryOf('multipart/form-data; boundary="a b"')).toBe('a b');
    expect(boundaryOf('multipart/form-data; charset=x; BOUNDARY=abc')).toBe('abc');
    expect(boundaryOf('multipart/form-data')).toBeNull();
  });

  it('refuses bodies that are not multipart', () => {
    const bad = [
      'no boundary here',
      '--b\r\nContent-Disposition: form-data; name="f"\r\n\r\nunterminated',
      '--b\r\nContent-Disposition: form-data; name="f"',
      '--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--',
      '--b\r\nContent-Disposition: form-data\r\n\r\nx\r\n--b--',
      '--bxyz\r\n',
    ];
    for (const text of bad) expect(() => parseMultipart(encoder.encode(text), 'b'), text).toThrow(MalformedMultipart);
  });
});

describe('readBody', () => {
  const tooLarge = () => new Error('too large');

  it('reads the chunks into one array of the declared length', async () => {
    const body = await readBody(streamOf(encoder.encode('abc'), encoder.encode('de')), 5, 10, tooLarge);
    expect(new TextDecoder().decode(body)).toBe('abcde');
    expect(body.buffer.byteLength).toBe(5);
  });

  it('takes less or more than declared, up to the limit', async () => {
    expect(new TextDecoder().decode(await readBody(streamOf(encoder.encode('abc')), 5, 10, tooLarge))).toBe('abc');
    expect(new TextDecoder().decode(await readBody(streamOf(encoder.encode('abc'), encoder.encode('defg')), 2, 10, tooLarge))).toBe('abcdefg');
    expect(new TextDecoder().decode(await readBody(streamOf(encoder.encode('abc')), undefined, 10, tooLarge))).toBe('abc');
  });

  it('refuses past the limit, declared or not', async () => {
    await expect(readBody(streamOf(encoder.encode('abcdef')), 3, 4, tooLarge)).rejects.toThrow('too large');
    await expect(readBody(streamOf(encoder.encode('ab')), 11, 10, tooLarge)).rejects.toThrow('too large');
    await expect(readBody(streamOf(encoder.encode('abcdefghijk')), undefined, 10, tooLarge)).rejects.toThrow('too large');
  });

  it('reads a byte stream (a request body) into the array itself, to its end or past what was declared', async () => {
    const bodyOf = (text: string) => new Request('http://x/', { method: 'POST', body: text }).body;
    expect(() => bodyOf('x')!.getReader({ mode: 'byob' })).not.toThrow();
    const exact = await readBody(bodyOf('abcde'), 5, 10, tooLarge);
    expect(new TextDecoder().decode(exact)).toBe('abcde');
    expect(exact.buffer.byteLength).toBe(5); // read into, not copied
    const bytes = new Uint8Array(200_000).map((_, i) => i % 251);
    expect(await readBody(new Request('http://x/', { method: 'POST', body: bytes }).body, 200_000, 300_000, tooLarge)).toEqual(bytes);
    expect(new TextDecoder().decode(await readBody(bodyOf('abcdefg'), 2, 10, tooLarge))).toBe('abcdefg');
    expect(new TextDecoder().decode(await readBody(bodyOf('abc'), 0, 10, tooLarge))).toBe('abc');
    await expect(readBody(bodyOf('abcdef'), 3, 4, tooLarge)).rejects.toThrow('too large');
  });

  it('an UploadedPart survives a FormData (the route validator reads the form from one)', () => {
    const part = new UploadedPart(encoder.encode('xyz'), 'a.png', 'image/png');
    const form = new FormData();
    form.append('file', part);
    const back = form.get('file');
    expect(back).toBe(part);
  });
});

describe('UploadedPart', () => {
  it('answers arrayBuffer() with a copy of its content', async () => {
    const content = encoder.encode('abc');
    const part = new UploadedPart(content, 'a.png', 'image/png');
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(content);
    expect(await bytesOf(part)).toBe(content);
    expect(await bytesOf(new File([content], 'b.png'))).toEqual(content);
  });
});
