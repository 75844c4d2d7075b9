/**
 * SSH wire encoding (RFC 4251 §5): byte, boolean, uint32, uint64, string, mpint, name-list.
 * `Writer` builds a message; `Reader` reads one and throws `SshError('protocol')` past its end.
 */
import { SshError } from './errors';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const utf8 = (s: string): Uint8Array => encoder.encode(s);
export const text = (b: Uint8Array): string => decoder.decode(b);

export function concat(...parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i]! ^ b[i]!;
  return d === 0;
}

/** An unsigned big-endian magnitude as an mpint body (RFC 4251 §5: no needless leading zeros, a 0x00 before a set top bit). */
export function mpintBody(magnitude: Uint8Array): Uint8Array {
  let i = 0;
  while (i < magnitude.length && magnitude[i] === 0) i++;
  const m = magnitude.subarray(i);
  return m.length && m[0]! & 0x80 ? concat(new Uint8Array([0]), m) : m;
}

/** An mpint body without its sign byte, left-padded to `size` bytes (ECDSA r/s, RSA key parts). */
export function unsignedFixed(body: Uint8Array, size: number): Uint8Array {
  let i = 0;
  while (i < body.length - 1 && body[i] === 0) i++;
  const m = body.subarray(i);
  if (m.length > size) throw new SshError('protocol', 'an integer is longer than its field');
  const out = new Uint8Array(size);
  out.set(m, size - m.length);
  return out;
}

export class Writer {
  private buf = new Uint8Array(256);
  private len = 0;

  private room(n: number) {
    if (this.len + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.len + n));
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  byte(v: number): this {
    this.room(1);
    this.buf[this.len++] = v;
    return this;
  }

  bool(v: boolean): this {
    return this.byte(v ? 1 : 0);
  }

  uint32(v: number): this {
    this.room(4);
    new DataView(this.buf.buffer).setUint32(this.len, v >>> 0);
    this.len += 4;
    return this;
  }

  uint64(v: number): this {
    this.room(8);
    new DataView(this.buf.buffer).setBigUint64(this.len, BigInt(v));
    this.len += 8;
    return this;
  }

  raw(b: Uint8Array): this {
    this.room(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
    return this;
  }

  string(v: Uint8Array | string): this {
    const b = typeof v === 'string' ? utf8(v) : v;
    return this.uint32(b.length).raw(b);
  }

  mpint(magnitude: Uint8Array): this {
    return this.string(mpintBody(magnitude));
  }

  nameList(names: readonly string[]): this {
    return this.string(names.join(','));
  }

  bytes(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

export class Reader {
  private o = 0;
  private readonly view: DataView;

  constructor(private readonly b: Uint8Array) {
    this.view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }

  private need(n: number) {
    if (this.o + n > this.b.length) throw new SshError('protocol', 'a message ended early');
  }

  byte(): number {
    this.need(1);
    return this.b[this.o++]!;
  }

  bool(): boolean {
    return this.byte() !== 0;
  }

  uint32(): number {
    this.need(4);
    const v = this.view.getUint32(this.o);
    this.o += 4;
    return v;
  }

  uint64(): number {
    this.need(8);
    const v = this.view.getBigUint64(this.o);
    this.o += 8;
    return Number(v);
  }

  raw(n: number): Uint8Array {
    this.need(n);
    const v = this.b.subarray(this.o, this.o + n);
    this.o += n;
    return v;
  }

  string(): Uint8Array {
    return this.raw(this.uint32());
  }

  text(): string {
    return text(this.string());
  }

  nameList(): string[] {
    const s = this.text();
    return s ? s.split(',') : [];
  }

  rest(): Uint8Array {
    return this.raw(this.b.length - this.o);
  }

  get remaining(): number {
    return this.b.length - this.o;
  }
}

export function base64(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(s);
}

export function fromBase64(s: string): Uint8Array {
  const bin = atob(s.replace(/\s+/g, ''));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export const base64url = (b: Uint8Array): string => base64(b).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
