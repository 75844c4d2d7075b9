/**
 * Lengths and sheet sizes as people write them in task parameters: `"10mm"`, `"0.25in"`,
 * `"6pt"`, `"1cm"` or a bare number of points; sheets by name (`SRA3`, `A3`, `Letter`, …) or as
 * `<w>x<h><unit>` (`12x18in`, `320x450mm`). Everything comes out in PDF points (1/72 in).
 */
export const PT_PER = { pt: 1, in: 72, mm: 72 / 25.4, cm: 72 / 2.54 } as const;

const LENGTH = /^\s*(\d+(?:\.\d*)?|\.\d+)\s*(pt|in|mm|cm)?\s*$/i;

/** Points of a length, or null when it is not one (negative lengths are not lengths here). */
export function parseLength(raw: unknown): number | null {
  if (typeof raw === 'number') return Number.isFinite(raw) && raw >= 0 ? raw : null;
  if (typeof raw !== 'string') return null;
  const m = LENGTH.exec(raw);
  if (!m) return null;
  const unit = (m[2] ?? 'pt').toLowerCase() as keyof typeof PT_PER;
  return Number(m[1]) * PT_PER[unit];
}

const mm = (w: number, h: number) => ({ width: w * PT_PER.mm, height: h * PT_PER.mm });
const inch = (w: number, h: number) => ({ width: w * 72, height: h * 72 });

/** Named sheets, portrait (width ≤ height). */
export const SHEETS: Record<string, { width: number; height: number }> = {
  sra3: mm(320, 450),
  sra4: mm(225, 320),
  sra2: mm(450, 640),
  a4: mm(210, 297),
  a3: mm(297, 420),
  a2: mm(420, 594),
  b2: mm(500, 707),
  letter: inch(8.5, 11),
  legal: inch(8.5, 14),
  tabloid: inch(11, 17),
  ledger: inch(11, 17),
};

const SIZE = /^\s*(\d+(?:\.\d*)?|\.\d+)\s*[x×]\s*(\d+(?:\.\d*)?|\.\d+)\s*(pt|in|mm|cm)?\s*$/i;

/** A sheet's size in points (as written: `12x18in` is 864 × 1296), or null. */
export function parseSheetSize(raw: unknown): { width: number; height: number } | null {
  if (typeof raw !== 'string') return null;
  const named = SHEETS[raw.trim().toLowerCase()];
  if (named) return { ...named };
  const m = SIZE.exec(raw);
  if (!m) return null;
  const k = PT_PER[(m[3] ?? 'pt').toLowerCase() as keyof typeof PT_PER];
  const size = { width: Number(m[1]) * k, height: Number(m[2]) * k };
  return size.width > 0 && size.height > 0 ? size : null;
}

/** `"3x7"` → 3 columns × 7 rows; `auto` → 'auto'; else null. */
export function parseLayout(raw: unknown): { columns: number; rows: number } | 'auto' | null {
  if (raw === undefined || raw === null || (typeof raw === 'string' && /^\s*auto\s*$/i.test(raw))) return 'auto';
  if (typeof raw !== 'string') return null;
  const m = /^\s*(\d{1,3})\s*[x×]\s*(\d{1,3})\s*$/i.exec(raw);
  if (!m) return null;
  const columns = Number(m[1]);
  const rows = Number(m[2]);
  return columns >= 1 && rows >= 1 ? { columns, rows } : null;
}
