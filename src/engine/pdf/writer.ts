/**
 * A small PDF object writer (ISO 32000-1 §7) that streams: objects go to the sink as soon as
 * they are written, their byte offsets are noted, and the cross-reference table and trailer come
 * last. Object numbers can be reserved before the object is written (the page tree is written
 * after its pages), so nothing but offsets is kept for the whole file.
 */
import type { ByteSink } from './sink';

export class PdfRef {
  constructor(readonly num: number) {}
}
export class PdfName {
  constructor(readonly name: string) {}
}
/** Bytes written verbatim (content already in PDF syntax). */
export class PdfRaw {
  constructor(readonly text: string) {}
}
export class PdfString {
  constructor(readonly value: string) {}
}

export type PdfValue =
  | number
  | boolean
  | null
  | PdfRef
  | PdfName
  | PdfRaw
  | PdfString
  | PdfValue[]
  | { [key: string]: PdfValue | undefined };

export const name = (n: string): PdfName => new PdfName(n);
export const str = (s: string): PdfString => new PdfString(s);

/** A real number as PDF writes it: no exponent, at most 4 decimals, no trailing zeros. */
export function num(n: number): string {
  if (!Number.isFinite(n)) throw new Error(`PDF number must be finite, got ${n}`);
  if (Number.isInteger(n)) return String(n);
  const s = n.toFixed(4).replace(/0+$/, '').replace(/\.$/, '');
  return s === '-0' ? '0' : s;
}

// §7.3.5: delimiters, whitespace, '#' and anything outside ! .. ~ are written as #xx.
function nameText(n: string): string {
  let out = '/';
  for (const b of new TextEncoder().encode(n)) {
    const c = String.fromCharCode(b);
    out += b < 0x21 || b > 0x7e || '()<>[]{}/%#'.includes(c) ? `#${b.toString(16).padStart(2, '0')}` : c;
  }
  return out;
}

// Literal strings are written as UTF-16BE hex when not plain ASCII (§7.9.2.2 text strings).
function stringText(s: string): string {
  if (/^[\x20-\x7e]*$/.test(s)) return `(${s.replace(/[\\()]/g, (m) => `\\${m}`)})`;
  let hex = 'FEFF';
  for (let i = 0; i < s.length; i++) hex += s.charCodeAt(i).toString(16).padStart(4, '0');
  return `<${hex}>`;
}

export function serialize(v: PdfValue): string {
  if (v === null) return 'null';
  if (typeof v === 'number') return num(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v instanceof PdfRef) return `${v.num} 0 R`;
  if (v instanceof PdfName) return nameText(v.name);
  if (v instanceof PdfRaw) return v.text;
  if (v instanceof PdfString) return stringText(v.value);
  if (Array.isArray(v)) return `[${v.map(serialize).join(' ')}]`;
  const parts: string[] = [];
  for (const [k, val] of Object.entries(v)) if (val !== undefined) parts.push(`${nameText(k)} ${serialize(val)}`);
  return `<< ${parts.join(' ')} >>`;
}

const encoder = new TextEncoder();
const latin1 = (s: string): Uint8Array => encoder.encode(s);

export class PdfWriter {
  private offset = 0;
  private readonly offsets: number[] = [0];
  private nextNum = 1;

  constructor(private readonly sink: ByteSink) {}

  /** Bytes written so far. */
  get size(): number {
    return this.offset;
  }

  private async emit(bytes: Uint8Array): Promise<void> {
    this.offset += bytes.length;
    await this.sink.write(bytes);
  }

  /** `version`: the header's PDF version (PDF/X-4 is based on 1.6, PDF/X-1a:2003 on 1.4). */
  async header(version = '1.7'): Promise<void> {
    // The comment of four high bytes tells transfer tools the file is binary (§7.5.2).
    await this.emit(new Uint8Array([...latin1(`%PDF-${version}\n%`), 0xe2, 0xe3, 0xcf, 0xd3, 0x0a]));
  }

  /** Reserves an object number; the object must be written before `finish`. */
  alloc(): PdfRef {
    const ref = new PdfRef(this.nextNum++);
    this.offsets[ref.num] = -1;
    return ref;
  }

  private begin(ref: PdfRef): string {
    if (this.offsets[ref.num] !== -1) throw new Error(`PDF object ${ref.num} written twice or never allocated`);
    this.offsets[ref.num] = this.offset;
    return `${ref.num} 0 obj\n`;
  }

  async object(ref: PdfRef, value: PdfValue): Promise<void> {
    await this.emit(latin1(`${this.begin(ref)}${serialize(value)}\nendobj\n`));
  }

  /** A stream object whose data is known; /Length is filled in. */
  async stream(ref: PdfRef, dict: Record<string, PdfValue | undefined>, data: Uint8Array): Promise<void> {
    const head = `${this.begin(ref)}${serialize({ ...dict, Length: data.length })}\nstream\n`;
    await this.emit(latin1(head));
    await this.emit(data);
    await this.emit(latin1('\nendstream\nendobj\n'));
  }

  /** Cross-reference table and trailer (§7.5.4, §7.5.5). */
  async finish(root: PdfRef, info?: PdfRef): Promise<void> {
    const missing = this.offsets.findIndex((o, i) => i > 0 && o < 0);
    if (missing > 0) throw new Error(`PDF object ${missing} was allocated but never written`);
    const xref = this.offset;
    const rows = [`xref\n0 ${this.offsets.length}\n0000000000 65535 f\r\n`];
    for (let i = 1; i < this.offsets.length; i++) rows.push(`${String(this.offsets[i]).padStart(10, '0')} 00000 n\r\n`);
    const id = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');
    const trailer = serialize({ Size: this.offsets.length, Root: root, Info: info, ID: [new PdfRaw(`<${id}>`), new PdfRaw(`<${id}>`)] });
    await this.emit(latin1(`${rows.join('')}trailer\n${trailer}\nstartxref\n${xref}\n%%EOF\n`));
  }
}
