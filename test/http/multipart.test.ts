import { describe, expect, it } from 'vitest';
import { boundaryOf, MultipartError, readMultipart, type MultipartFile } from '../../src/http/multipart';

const encoder = new TextEncoder();

/** A body as workerd's own Request serialises a FormData, with its boundary. */
async function serialised(form: FormData): Promise<{ body: Uint8Array; boundary: string }> {
  const request = new Request('http://x/', { method: 'POST', body: form });
  const boundary = boundaryOf(request.headers.get('content-type')!)!;
  return { body: new Uint8Array(await request.arrayBuffer()), boundary };
}

/** `bytes` as a stream of `size`-byte chunks (boundaries straddle them). */
const chunked = (bytes: Uint8Array, size: number) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (let at = 0; at < bytes.length; at += size) controller.enqueue(bytes.slice(at, at + size));
      controller.close();
    },
  });

/** Every file part read whole: the test's onFile. */
const collect = async (f: MultipartFile) => ({ name: f.filename, type: f.contentType, bytes: new Uint8Array(await new Response(f.stream).arrayBuffer()) });
const anyFile = (_field: string, filename: string | undefined) => filename !== undefined;

describe('readMultipart', () => {
  it('streams several file parts and collects fields, in order, whatever the chunking', async () => {
    const psd = new Uint8Array(70_000).map((_, i) => (i * 7) % 256);
    psd.set(encoder.encode('\r\n--'), 1000); // looks like a delimiter's start, is not one
    const form = new FormData();
    form.append('file', new File([psd], 'cards/a.psd', { type: 'image/vnd.adobe.photoshop' }));
    form.append('destination', 'Földer');
    form.append('file', new File([new Uint8Array(0)], 'Ünïcode ✓.ttf'));
    const { body, boundary } = await serialised(form);
    for (const size of [5, 4096, body.length]) {
      const { fields, files } = await readMultipart(chunked(body, size), boundary, { isFile: anyFile, onFile: collect });
      expect(fields).toEqual([['destination', 'Földer']]);
      expect(files.map((f) => [f.field, f.result.name])).toEqual([['file', 'cards/a.psd'], ['file', 'Ünïcode ✓.ttf']]);
      expect(files[0]!.result.type).toBe('image/vnd.adobe.photoshop');
      expect(files[0]!.result.bytes).toEqual(psd);
      expect(files[1]!.result.bytes.length).toBe(0);
    }
  });

  it('takes a preamble, transport padding, quoted boundaries and escaped names', async () => {
    const body = encoder.encode(
      'preamble\r\n--b"x\r\n' +
        'Content-Disposition: form-data; name="file"; filename="a \\"q\\".psd"\r\n\r\nPSD\r\n' +
        '--b"x  \r\nContent-Disposition: form-data; name=overwrite\r\n\r\ntrue\r\n--b"x--\r\nepilogue',
    );
    const { fields, files } = await readMultipart(chunked(body, 5), 'b"x', { isFile: anyFile, onFile: collect });
    expect(files[0]!.field).toBe('file');
    expect(files[0]!.result.name).toBe('a "q".psd');
    expect(new TextDecoder().decode(files[0]!.result.bytes)).toBe('PSD');
    expect(fields).toEqual([['overwrite', 'true']]);
    expect(boundaryOf('multipart/form-data; boundary="a b"')).toBe('a b');
    expect(boundaryOf('multipart/form-data; charset=x; BOUNDARY=abc')).toBe('abc');
    expect(boundaryOf('multipart/form-data')).toBeNull();
  });

  it('refuses bodies that are not multipart, with a MultipartError', async () => {
    const bad = [
      'no boundary here',
      '--b\r\nContent-Disposition: form-data; name="f"\r\n\r\nunterminated',
      '--b\r\nContent-Disposition: form-data; name="f"; filename="x"\r\n\r\nunterminated file',
      '--b\r\nContent-Disposition: form-data; name="f"',
      '--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--',
      '--b\r\nContent-Disposition: form-data\r\n\r\nx\r\n--b--',
      '--b\r\nContent-Disposition: attachment; name="f"\r\n\r\nx\r\n--b--',
      '--bxyz\r\n',
    ];
    for (const text of bad) await expect(readMultipart(chunked(encoder.encode(text), 3), 'b', { isFile: anyFile, onFile: collect }), text).rejects.toThrow(MultipartError);
  });

  it('maxFiles: a file part beyond it is an error naming its field', async () => {
    const form = new FormData();
    form.append('file', new File(['a'], 'a.txt'));
    form.append('file', new File(['b'], 'b.txt'));
    const { body, boundary } = await serialised(form);
    await expect(readMultipart(chunked(body, 64), boundary, { isFile: anyFile, onFile: collect, maxFiles: 1 })).rejects.toMatchObject({ field: 'file', message: 'Send one file only.' });
  });

  it('limit: past it tooLarge() is thrown mid-file, the rest of the body drained, not cancelled', async () => {
    const form = new FormData();
    form.append('file', new File([new Uint8Array(300_000)], 'a.psd'));
    form.append('destination', 'x');
    const { body, boundary } = await serialised(form);
    let pulled = 0;
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled >= body.length) return controller.close();
        controller.enqueue(body.slice(pulled, pulled + 10_000));
        pulled += 10_000;
      },
      cancel() {
        cancelled = true;
      },
    });
    const tooLarge = () => new Error('too large');
    await expect(readMultipart(stream, boundary, { isFile: anyFile, onFile: collect, limit: { bytes: 100_000, tooLarge } })).rejects.toThrow('too large');
    expect(cancelled).toBe(false);
    expect(pulled).toBeGreaterThanOrEqual(body.length); // read to its end
  });
});
