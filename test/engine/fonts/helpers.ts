import { fixtureServer } from '../../helpers/fixtures';

/** A bundled font from assets/fonts (served by test/global-setup.ts under /fonts/). */
export async function bundledFont(file: string): Promise<Uint8Array> {
  const res = await fetch(`${fixtureServer()}/fonts/${encodeURIComponent(file)}`);
  if (!res.ok) throw new Error(`font ${file}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}
