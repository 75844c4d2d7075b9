import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { FileStore } from '../../../src/dynamic-image/store/files';
import { sha256Hex } from '../../../src/engine/hash';

/** FileStore.open (issue 25 §3): a file's metadata now, its bytes from the same answer when asked. */
describe('FileStore.open', () => {
  const bytes = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 13 + (i >> 9)) & 255);

  it('answers the same metadata as head, and the bytes as read, from one storage answer', async () => {
    const store = new FileStore(env.FILES);
    await store.put('images', 'open/a.jpg', bytes, { contentType: 'image/jpeg' });
    const opened = await store.open('images', 'open/a.jpg');
    expect(opened!.info).toEqual(await store.head('images', 'open/a.jpg'));
    expect(Buffer.compare(Buffer.from(await opened!.bytes()), Buffer.from(bytes))).toBe(0);
    opened!.cancel(); // after the bytes were read: nothing to give up, no throw
  });

  it('records the hash of a file put by other means, as head does', async () => {
    await env.FILES.put('images/open/seeded.png', bytes);
    const opened = await new FileStore(env.FILES).open('images', 'open/seeded.png');
    expect(opened!.info.sha256).toBe(await sha256Hex(bytes));
    expect((await env.FILES.head('images/open/seeded.png'))!.customMetadata?.sha256).toBe(await sha256Hex(bytes));
    expect((await opened!.bytes()).length).toBe(bytes.length);
  });

  it('answers null for a missing file, and a file given up unread leaves the store usable', async () => {
    const store = new FileStore(env.FILES);
    expect(await store.open('images', 'open/missing.jpg')).toBeNull();
    await store.put('images', 'open/b.jpg', bytes);
    (await store.open('images', 'open/b.jpg'))!.cancel();
    expect((await store.read('images', 'open/b.jpg'))!.bytes.length).toBe(bytes.length);
  });
});
