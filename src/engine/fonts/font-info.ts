/**
 * Names of a TrueType/OpenType font read from its `name` table (OpenType spec, "name" table).
 * The font store lists fonts by these names and templates refer to fonts by `postscriptName`.
 */
import { unprocessable } from '../errors';

export interface FontInfo {
  /** Name ID 4, e.g. "Liberation Sans Bold". */
  fullName: string;
  /** Typographic subfamily (ID 17) if present, else subfamily (ID 2), e.g. "Bold". */
  style: string;
  /** Typographic family (ID 16) if present, else family (ID 1), e.g. "Liberation Sans". */
  family: string;
  /** Name ID 6, e.g. "LiberationSans-Bold". */
  postscriptName: string;
}

const SFNT_VERSIONS = new Set([0x00010000, 0x4f54544f /* OTTO */, 0x74727565 /* true */]);

/** Offset of the first font's table directory: the file itself, or the first face of a TTC. */
function fontOffset(view: DataView): number {
  if (view.byteLength < 12) throw notAFont('the file is too short');
  const tag = view.getUint32(0);
  if (SFNT_VERSIONS.has(tag)) return 0;
  if (tag === 0x74746366 /* ttcf */) return view.getUint32(12);
  if (tag === 0x774f4646 || tag === 0x774f4632) throw notAFont('WOFF/WOFF2 fonts are not supported; upload the TTF or OTF');
  throw notAFont('it is not a TrueType or OpenType font');
}

const notAFont = (reason: string) => unprocessable(`The font cannot be read: ${reason}.`, [{ path: 'file', reason }]);

/** Finds a table in the sfnt table directory at `base`; null when absent. */
export function findTable(view: DataView, tag: string, base = 0): { offset: number; length: number } | null {
  const numTables = view.getUint16(base + 4);
  for (let i = 0; i < numTables; i++) {
    const rec = base + 12 + i * 16;
    if (rec + 16 > view.byteLength) break;
    const t = String.fromCharCode(view.getUint8(rec), view.getUint8(rec + 1), view.getUint8(rec + 2), view.getUint8(rec + 3));
    if (t === tag) return { offset: view.getUint32(rec + 8), length: view.getUint32(rec + 12) };
  }
  return null;
}

// Mac Roman 0x80..0xFF.
const MAC_ROMAN =
  'ÄÅÇÉÑÖÜáàâäãåçéèêëíìîïñóòôöõúùûü†°¢£§•¶ß®©™´¨≠ÆØ∞±≤≥¥µ∂∑∏π∫ªºΩæø¿¡¬√ƒ≈∆«»… ÀÃÕŒœ–—“”‘’÷◊ÿŸ⁄€‹›ﬁﬂ‡·‚„‰ÂÊÁËÈÍÎÏÌÓÔÒÚÛÙıˆ˜¯˘˙˚¸˝˛ˇ';

function decodeUtf16be(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i + 1 < bytes.length; i += 2) s += String.fromCharCode((bytes[i] << 8) | bytes[i + 1]);
  return s;
}

function decodeMacRoman(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += b < 0x80 ? String.fromCharCode(b) : MAC_ROMAN[b - 0x80];
  return s;
}

/**
 * Reads the font's names. Preference per name ID: Windows Unicode (platform 3, encoding 1 or 10),
 * US English first; then Unicode platform 0; then Mac Roman (platform 1, encoding 0), English first.
 *
 * @example readFontInfo(ttfBytes).postscriptName // "LiberationSans-Bold"
 */
export function readFontInfo(bytes: Uint8Array): FontInfo {
  // Kept per bytes object: a personalised text reads the names of the same cached font bytes on
  // every request (a check and the family; ~0.1 ms and 0.1 MB of strings a request, issue 25 §3).
  let info = infoOf.get(bytes);
  if (!info) infoOf.set(bytes, (info = Object.freeze(parseFontInfo(bytes))));
  return info;
}

const infoOf = new WeakMap<Uint8Array, FontInfo>();

function parseFontInfo(bytes: Uint8Array): FontInfo {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const base = fontOffset(view);
  if (base + 12 > view.byteLength) throw notAFont('the font directory is truncated');
  const table = findTable(view, 'name', base);
  if (!table || table.offset + 6 > view.byteLength) throw notAFont('it has no name table');
  const count = view.getUint16(table.offset + 2);
  const storage = table.offset + view.getUint16(table.offset + 4);

  // Best (lowest rank) string per name ID.
  const best = new Map<number, { rank: number; value: string }>();
  for (let i = 0; i < count; i++) {
    const rec = table.offset + 6 + i * 12;
    if (rec + 12 > view.byteLength) break;
    const platform = view.getUint16(rec);
    const encoding = view.getUint16(rec + 2);
    const language = view.getUint16(rec + 4);
    const nameId = view.getUint16(rec + 6);
    const length = view.getUint16(rec + 8);
    const start = storage + view.getUint16(rec + 10);
    if (start + length > view.byteLength) continue;
    let rank: number;
    if (platform === 3 && (encoding === 1 || encoding === 10)) rank = language === 0x409 ? 0 : 1;
    else if (platform === 0) rank = 2;
    else if (platform === 1 && encoding === 0) rank = language === 0 ? 3 : 4;
    else continue;
    const prev = best.get(nameId);
    if (prev && prev.rank <= rank) continue;
    const raw = bytes.subarray(start, start + length);
    const value = (platform === 1 ? decodeMacRoman(raw) : decodeUtf16be(raw)).replace(/\0/g, '').trim();
    if (value) best.set(nameId, { rank, value });
  }
  const name = (id: number) => best.get(id)?.value;
  const family = name(16) ?? name(1);
  const style = name(17) ?? name(2) ?? 'Regular';
  const fullName = name(4) ?? (family ? `${family} ${style}` : undefined);
  const postscriptName = name(6) ?? fullName?.replace(/[^\x21-\x7e]|[[\](){}<>/%]/g, '');
  if (!family || !fullName || !postscriptName) throw notAFont('its name table has no family name');
  return { fullName, style, family, postscriptName };
}
