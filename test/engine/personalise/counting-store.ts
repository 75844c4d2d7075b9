import { env } from 'cloudflare:workers';
import { FileStore } from '../../../src/dynamic-image/store';
import type { InputStore, OpenedInput } from '../../../src/engine/inputs';

/**
 * The file store, counting what the engine asks of it for pictures (heads, reads, and with
 * `withOpen` FileStore.open's answers: their bytes read or given up); without `withOpen` it has
 * no `open`, as the platform's stores.
 */
export function countingStore(withOpen: boolean) {
  const inner = new FileStore(env.FILES);
  const asked = { head: [] as string[], read: [] as string[], open: [] as string[], bytes: [] as string[], cancel: [] as string[] };
  const store: InputStore = {
    bucket: inner.bucket,
    head: (root, name) => (root === 'images' && asked.head.push(name), inner.head(root, name)),
    read: (root, name) => (root === 'images' && asked.read.push(name), inner.read(root, name)),
    readStart: (root, name, length) => inner.readStart(root, name, length),
    put: (...args) => inner.put(...args),
    fonts: () => inner.fonts(),
  };
  if (withOpen) {
    store.open = async (root, name): Promise<OpenedInput | null> => {
      asked.open.push(name);
      const opened = await inner.open(root, name);
      if (!opened) return null;
      return {
        info: opened.info,
        bytes: () => (asked.bytes.push(name), opened.bytes()),
        cancel: () => (asked.cancel.push(name), opened.cancel()),
      };
    };
  }
  return { store, asked };
}
