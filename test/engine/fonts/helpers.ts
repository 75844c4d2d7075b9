import { FontCache, FontCatalog, fontLoader } from '../../../src/engine/fonts/catalog';
import { readFontInfo } from '../../../src/engine/fonts/font-info';
import { bundledFont } from '../../helpers/fixtures';

export { bundledFont };

const BUNDLED = [
  'DejaVuSans.ttf',
  'LiberationMono-Regular.ttf',
  'LiberationSans-Bold.ttf',
  'LiberationSans-BoldItalic.ttf',
  'LiberationSans-Italic.ttf',
  'LiberationSans-Regular.ttf',
  'LiberationSerif-Bold.ttf',
  'LiberationSerif-Regular.ttf',
  // Fallbacks for other scripts (scripts/fonts/make-fallbacks.sh, issue 21 §3).
  'NotoSansArabic-Regular.ttf',
  'NotoSansCJKsc-Regular.ttf',
  'NotoSansDevanagari-Regular.ttf',
  'NotoSansHebrew-Regular.ttf',
  'NotoSansThai-Regular.ttf',
];

let loader: Promise<(postscriptName: string) => Promise<Uint8Array | null>> | undefined;

/**
 * A font store holding only the bundled fonts, looked up by their real PostScript names (read
 * from the files, as the pipeline's catalog does: LiberationSans-Regular.ttf is "LiberationSans").
 */
export async function bundledFontStore(postscriptName: string): Promise<Uint8Array | null> {
  loader ??= (async () => {
    const catalog = new FontCatalog();
    const files = new Map<string, Uint8Array>();
    for (const file of BUNDLED) {
      const bytes = await bundledFont(file);
      files.set(file, bytes);
      catalog.add(file, readFontInfo(bytes));
    }
    return fontLoader(catalog, async (key) => files.get(key) ?? null, new FontCache());
  })();
  return (await loader)(postscriptName);
}
