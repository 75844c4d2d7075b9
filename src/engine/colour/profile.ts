import { Unprocessable } from '../errors';
import { RENDERING_INTENTS, type ColourSpace, type ProfileInfo } from './types';

/**
 * Reading an ICC profile's header and text tags (ICC.1:2010 §7.2 header, §7.3 tag table,
 * §10.13 multiLocalizedUnicodeType, ICC.1:2001-04 §6.5.17 textDescriptionType) without
 * LittleCMS, so listing or validating an upload costs no WASM start. `checkProfile` adds
 * LittleCMS's own parse for uploads.
 */

/** Not an ICC profile, or one the platform cannot use (not RGB, CMYK or grey). */
export class InvalidProfile extends Unprocessable {
  static override code = 'ERR_INVALID_PROFILE';
  override code = 'ERR_INVALID_PROFILE';
}

const SPACES: Record<string, ColourSpace> = { 'RGB ': 'Rgb', CMYK: 'Cmyk', GRAY: 'Grayscale' };
const CLASSES = new Set(['scnr', 'mntr', 'prtr', 'link', 'spac', 'abst', 'nmcl']);

const invalid = (reason: string) => new InvalidProfile(`The file is not a valid ICC profile: ${reason}.`, [{ path: 'file', reason }]);

/**
 * The colour space, description and header facts of an ICC profile; throws InvalidProfile
 * (a 422 where it reaches the API) for a file that is not one, or not RGB, CMYK or grey.
 */
export function readProfileInfo(bytes: Uint8Array): ProfileInfo {
  if (bytes.length < 132) throw invalid(`${bytes.length} bytes is shorter than an ICC header and tag count`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const sig = (at: number) => String.fromCharCode(bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]);
  if (sig(36) !== 'acsp') throw invalid('no "acsp" signature at byte 36');
  const size = view.getUint32(0);
  if (size < 132 || size > bytes.length) throw invalid(`the header declares ${size} bytes, the file has ${bytes.length}`);
  const deviceClass = sig(12);
  if (!CLASSES.has(deviceClass)) throw invalid(`unknown profile class "${deviceClass.trim()}"`);
  const space = sig(16);
  const colorSpace = SPACES[space];
  if (!colorSpace) throw invalid(`its colour space "${space.trim()}" is not RGB, CMYK or Gray`);
  const count = view.getUint32(128);
  if (count > 1000 || 132 + count * 12 > size) throw invalid(`its tag table (${count} tags) does not fit the file`);
  const tags = new Map<string, [number, number]>();
  for (let i = 0, at = 132; i < count; i++, at += 12) {
    const offset = view.getUint32(at + 4);
    const length = view.getUint32(at + 8);
    if (offset + length > size || length < 8) throw invalid(`tag "${sig(at)}" lies outside the file`);
    tags.set(sig(at), [offset, length]);
  }
  const text = (tag: string) => {
    const at = tags.get(tag);
    return at ? readText(bytes, view, at[0], at[1]) : undefined;
  };
  const description = text('desc');
  if (description === undefined) throw invalid('it has no description tag ("desc")');
  const copyright = text('cprt');
  const intent = view.getUint32(64);
  return {
    colorSpace,
    description,
    ...(copyright ? { copyright } : {}),
    deviceClass,
    version: `${bytes[8]}.${bytes[9] >> 4}`,
    renderingIntent: RENDERING_INTENTS[intent] ?? 'Perceptual',
  };
}

/** textDescriptionType ('desc', v2), multiLocalizedUnicodeType ('mluc', v4: the first record) or textType. */
function readText(bytes: Uint8Array, view: DataView, at: number, length: number): string {
  const type = String.fromCharCode(...bytes.subarray(at, at + 4));
  const end = at + length;
  const ascii = (from: number, to: number) => {
    let s = '';
    for (let i = from; i < Math.min(to, end) && bytes[i] !== 0; i++) s += String.fromCharCode(bytes[i]);
    return s;
  };
  if (type === 'desc' && length >= 12) return ascii(at + 12, at + 12 + view.getUint32(at + 8)).trim();
  if (type === 'text') return ascii(at + 8, end).trim();
  if (type === 'mluc' && length >= 16) {
    const records = view.getUint32(at + 8);
    if (records < 1 || at + 16 + 12 > end) return '';
    // Prefer English; else the first record.
    let pick = at + 16;
    for (let i = 0; i < records && at + 16 + i * 12 + 12 <= end; i++) {
      if (bytes[at + 16 + i * 12] === 0x65 && bytes[at + 17 + i * 12] === 0x6e) {
        pick = at + 16 + i * 12;
        break;
      }
    }
    const len = view.getUint32(pick + 4);
    const from = at + view.getUint32(pick + 8);
    if (from + len > end) return '';
    let s = '';
    for (let i = 0; i + 1 < len; i += 2) {
      const c = view.getUint16(from + i);
      if (c === 0) break;
      s += String.fromCharCode(c);
    }
    return s.trim();
  }
  return '';
}
