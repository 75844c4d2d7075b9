/**
 * Pair kerning from a TrueType font's `kern` table (OpenType spec, "kern — Kerning": the
 * Microsoft version 0 header with format 0 subtables of sorted glyph pairs), for writers that
 * place glyphs themselves (the design-atoms PDF's Text mode). Only horizontal, non-minimum,
 * non-cross-stream subtables count; Apple's version 1 tables and GPOS-only kerning give no pairs
 * (callers then place unkerned advances). resvg shapes the previews with GPOS; for fonts that
 * also carry a kern table (the bundled Liberation and DejaVu fonts) the two agree closely enough
 * that Liberation Sans text placed with these pairs lands on resvg's outlines (atoms pdf.test.ts).
 */
import { findTable } from './font-info';

/** Kerning between two glyph ids in font units (negative: closer); 0 when none. */
export type KernLookup = (left: number, right: number) => number;

const none: KernLookup = () => 0;
const cache = new WeakMap<Uint8Array, KernLookup>();

export function kernPairs(bytes: Uint8Array): KernLookup {
  let hit = cache.get(bytes);
  if (!hit) cache.set(bytes, (hit = parse(bytes)));
  return hit;
}

function parse(bytes: Uint8Array): KernLookup {
  try {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const base = view.getUint32(0) === 0x74746366 ? view.getUint32(12) : 0;
    const kern = findTable(view, 'kern', base);
    if (!kern || view.getUint16(kern.offset) !== 0) return none;
    const end = Math.min(view.byteLength, kern.offset + kern.length);
    const pairs = new Map<number, number>();
    let p = kern.offset + 4;
    for (let n = view.getUint16(kern.offset + 2); n > 0 && p + 6 <= end; n--) {
      const length = view.getUint16(p + 2);
      const coverage = view.getUint16(p + 4);
      // Format 0 (high byte), horizontal (bit 0), not minimum values (bit 1), not cross-stream (bit 2).
      if (coverage >> 8 === 0 && (coverage & 0x7) === 0x1) {
        const count = view.getUint16(p + 6);
        // `length` is 16 bits and overflows for large tables: the pair count bounds the read.
        const last = Math.min(end, p + 14 + count * 6);
        const override = (coverage & 0x8) !== 0;
        for (let q = p + 14; q + 6 <= last; q += 6) {
          const key = view.getUint16(q) * 65536 + view.getUint16(q + 2);
          const value = view.getInt16(q + 4);
          pairs.set(key, override ? value : (pairs.get(key) ?? 0) + value);
        }
        p = count * 6 + 14 > length ? last : p + length;
      } else {
        if (length < 6) break;
        p += length;
      }
    }
    return pairs.size ? (left, right) => pairs.get(left * 65536 + right) ?? 0 : none;
  } catch {
    return none;
  }
}
