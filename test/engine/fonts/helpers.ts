import { fixtureServer } from '../../helpers/fixtures';

/** A bundled font from assets/fonts (served by test/global-setup.ts under /fonts/). */
export async function bundledFont(file: string): Promise<Uint8Array> {
  const res = await fetch(`${fixtureServer()}/fonts/${encodeURIComponent(file)}`);
  if (!res.ok) throw new Error(`font ${file}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

/** A font store holding only the bundled fonts, by PostScript name (= file name here). */
export async function bundledFontStore(postscriptName: string): Promise<Uint8Array | null> {
  const res = await fetch(`${fixtureServer()}/fonts/${encodeURIComponent(postscriptName)}.ttf`);
  return res.ok ? new Uint8Array(await res.arrayBuffer()) : null;
}
