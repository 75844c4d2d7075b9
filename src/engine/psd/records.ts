import type { LayerEffectsInfo } from 'ag-psd';
import type { InterpolationMethod } from '../composite/gradient';
import { parseEffects, readVersionAndDescriptor } from 'ag-psd/dist/descriptor';
import { createReader, readUint32 } from 'ag-psd/dist/psdReader';
import { LARGE_KEYS, layerRecords } from './layer-section';

/** What ag-psd drops from one layer record (see readLayerRecords). */
export interface RecordExtras {
  /** 'brst': restricted channel indices (0 R, 1 G, 2 B), when there are any. */
  restricted?: number[];
  /** 'knko': Photoshop writes 0 none, 1 shallow, 2 deep (ag-psd reads it as a boolean). */
  knockout?: 'shallow' | 'deep';
  /** The record has no transparency channel (-1): on the bottom layer, Photoshop's Background. */
  opaque?: boolean;
  /** 'vmgm' set: "Vector Mask Hides Effects" (ag-psd does not read the key). */
  vectorMaskHidesEffects?: boolean;
  /**
   * A gradient map's interpolation method ('grdm', Photoshop 2022+). ag-psd reads the key but
   * decodes every value as 'perceptual' (its enum decoder expects 'type.value', the block holds
   * the bare key), so it is read here.
   */
  gradientMethod?: InterpolationMethod;
  /**
   * A gradient method in the layer's effects that ag-psd does not know (Stripes: 'GIMs', or a
   * long-form name): ag-psd then drops the whole 'lfx2' block without a word, and the layer's
   * effects would be drawn as if it had none.
   */
  unknownEffectGradientMethod?: string;
  /**
   * A gradient type in the layer's effects that ag-psd does not know: a stroke's Shape Burst
   * (Photoshop writes 'GrdT' 'shapeburst'; psd-tools' composite notes it "only avail in stroke
   * effect"). ag-psd's enum decoder throws on it and the whole 'lfx2'/'lmfx' block is dropped.
   */
  unknownEffectGradientType?: string;
  /**
   * The layer's effects read here when ag-psd could not read them only because a stroke's
   * gradient style is Shape Burst ('GrdT' 'shapeburst', which ag-psd's enum decoder refuses, so
   * its reader drops the whole block): each such stroke's style kept as 'shapeburst'
   * (composite/effects.ts draws it across the band). Replaces ag-psd's `effects` for the layer.
   */
  effects?: LayerEffectsInfo;
  /**
   * Why ag-psd cannot read the layer's effects block ('lfx2' or 'lmfx'), found by reading it
   * again the way ag-psd does: any value its decoders refuse (an enum it does not know) drops the
   * whole block without a word, and the layer would be drawn without the effects it holds.
   */
  unreadableEffects?: string;
  /**
   * Levels' or Curves' record of the fifth channel (K in a CMYK document), which ag-psd does not
   * read: 'levl' keeps the composite's and 28 channels' records, ag-psd reads four; 'curv' one
   * curve per channel bit, ag-psd reads bits 0 to 3.
   */
  blackLevels?: { shadowInput: number; highlightInput: number; shadowOutput: number; highlightOutput: number; midtoneInput: number };
  blackCurve?: Array<{ input: number; output: number }>;
  /**
   * The scale of each stroke effect filled with a pattern ('Scl ' in its 'FrFX' descriptor, a
   * share: 0.5 for 50 %), in ag-psd's stroke order; undefined where a stroke has none. ag-psd
   * reads a pattern stroke's link and phase but not its scale.
   */
  strokePatternScales?: Array<number | undefined>;
}

/** The four-character keys of the gradient interpolation methods ('GIMs', Stripes, is not drawn: left Classic). */
const GRADIENT_METHODS: Record<string, InterpolationMethod> = { Gcls: 'classic', Perc: 'perceptual', 'Lnr ': 'linear', Smoo: 'smooth' };
/** The enum type a descriptor's method value follows (written as a 4-byte length and these characters). */
const METHOD_TYPE = 'gradientInterpolationMethodType';

/**
 * The gradient types ag-psd's 'GrdT' enum decodes, by four-character key and by long name (what
 * Photoshop 2026 writes instead; ag-psd takes its own names for those).
 */
const GRADIENT_TYPES = new Set(['Lnr ', 'Rdl ', 'Angl', 'Rflc', 'Dmnd', 'linear', 'radial', 'angle', 'reflected', 'diamond']);

/** The gradient style Photoshop writes for a stroke's Shape Burst (offered by the stroke effect only). */
export const SHAPE_BURST = 'shapeburst';

/**
 * The layer's effects in an effects block ('lfx2', 'lmfx') whose strokes may hold Shape Burst
 * gradients: the descriptor read with ag-psd's own reader (which keeps enum values as raw
 * 'type.value' strings), each stroke's 'GrdT.shapeburst' put back to a style ag-psd decodes,
 * ag-psd's own `parseEffects` run on it, and the style set back to 'shapeburst' on those strokes.
 * The same reading as ag-psd's but for that one value. A string (what stopped it) when ag-psd's
 * reading still fails; null when the block is not one ag-psd reads.
 */
function effectsWithShapeBurst(bytes: Uint8Array, data: number, length: number): LayerEffectsInfo | string | null {
  try {
    const reader = createReader(bytes.buffer, bytes.byteOffset + data, length);
    if (readUint32(reader) !== 0) return null;
    const desc = readVersionAndDescriptor(reader);
    const { FrFX, frameFXMulti } = desc as { FrFX?: { Type?: string }; frameFXMulti?: Array<{ Type?: string }> };
    // ag-psd takes the strokes from frameFXMulti when there is one, else FrFX; both are decoded.
    const isBurst = (st: { Type?: string }) => st.Type?.split('.')[1] === SHAPE_BURST;
    const burst = (frameFXMulti ?? (FrFX ? [FrFX] : [])).map(isBurst);
    for (const st of [...(frameFXMulti ?? []), ...(FrFX ? [FrFX] : [])]) if (isBurst(st)) st.Type = 'GrdT.Lnr ';
    const effects = parseEffects(desc, false);
    effects.stroke?.forEach((st, i) => {
      if (burst[i] && st.gradient) (st.gradient as { style?: string }).style = SHAPE_BURST;
    });
    return effects;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/**
 * The first method value in descriptor bytes [from, to) that ag-psd cannot decode: after each
 * `gradientInterpolationMethodType`, a 4-byte length, then that many characters, or 4 when it is 0
 * (the four-character key; Photoshop 2026 writes the long name instead).
 */
function unknownMethodIn(bytes: Uint8Array, view: DataView, from: number, to: number): string | undefined {
  return unknownEnumIn(bytes, view, from, to, METHOD_TYPE, (v) => !!GRADIENT_METHODS[v] || Object.values(GRADIENT_METHODS).includes(v as InterpolationMethod));
}

/**
 * ag-psd's own reading of an effects block ('lfx2', 'lmfx': a version, then a descriptor), or
 * what stopped it (its reader swallows the error and drops the block).
 */
function effectsError(bytes: Uint8Array, data: number, length: number): string | undefined {
  try {
    const reader = createReader(bytes.buffer, bytes.byteOffset + data, length);
    if (readUint32(reader) !== 0) return undefined; // not a block ag-psd reads at all
    parseEffects(readVersionAndDescriptor(reader), false);
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/**
 * Each stroke's pattern scale in an effects block (see RecordExtras.strokePatternScales), or
 * undefined when no pattern stroke has one; null when the block cannot be read. ag-psd keeps the
 * last block it reads, so callers do too (a block it fails on leaves the one before).
 */
function strokePatternScales(bytes: Uint8Array, data: number, length: number): Array<number | undefined> | undefined | null {
  try {
    const reader = createReader(bytes.buffer, bytes.byteOffset + data, length);
    if (readUint32(reader) !== 0) return null;
    const desc = readVersionAndDescriptor(reader) as { FrFX?: StrokeDescriptor; frameFXMulti?: StrokeDescriptor[] };
    const strokes = desc.frameFXMulti ?? (desc.FrFX ? [desc.FrFX] : []);
    const scales = strokes.map((st) => {
      const scale = st['Scl '];
      const pattern = st.PntT === 'FrFl.Ptrn' || st.PntT === 'FrFl.pattern';
      return pattern && scale?.units === 'Percent' && Number.isFinite(scale.value) && scale.value > 0 ? scale.value / 100 : undefined;
    });
    return scales.some((v) => v !== undefined) ? scales : undefined;
  } catch {
    return null; // effectsError reports what ag-psd cannot read
  }
}
type StrokeDescriptor = { PntT?: string; 'Scl '?: { units: string; value: number } };

/** The first enum value of type `type` in descriptor bytes [from, to) that `known` refuses. */
function unknownEnumIn(bytes: Uint8Array, view: DataView, from: number, to: number, type: string, known: (value: string) => boolean): string | undefined {
  const first = type.charCodeAt(0);
  to = Math.min(to, bytes.length); // a block's length can claim more than the file holds
  for (let p = from; p + type.length + 8 <= to; p++) {
    if (bytes[p] !== first) continue;
    let k = 1;
    while (k < type.length && bytes[p + k] === type.charCodeAt(k)) k++;
    if (k < type.length) continue;
    const at = p + type.length;
    const length = view.getUint32(at) || 4;
    if (length > 64 || at + 4 + length > to) continue;
    const chars = bytes.subarray(at + 4, at + 4 + length);
    // An enum value is printable ASCII; anything else is not one (the type's name met elsewhere).
    if (chars.some((c) => c < 0x20 || c > 0x7e)) continue;
    const value = String.fromCharCode(...chars);
    if (!known(value)) return value;
  }
  return undefined;
}

/**
 * The restricted channels of each layer record (see readLayerRecords, which this is the
 * historical name of; compile.ts imports it so).
 */
export const readChannelRestrictions = (bytes: Uint8Array) => readLayerRecords(bytes);

/**
 * A light walk over the layer records, for what ag-psd drops: 'brst' (channel blending
 * restrictions; ag-psd reads none when one channel is restricted), the 'knko' knockout depth
 * (ag-psd keeps only whether there is one) and whether a record stores transparency. Returns,
 * per layer record in file order (bottom first, group dividers included), what it found.
 */

export function readLayerRecords(bytes: Uint8Array): Array<RecordExtras | undefined> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const large = view.getUint16(4) === 2;
  const sig = (at: number) => String.fromCharCode(bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]);
  const out: Array<RecordExtras | undefined> = [];
  try {
    // Each record, from the layer info in the layer and mask section or (16 and 32 bits) its 'Lr16'/'Lr32' block.
    for (const { channelIds, extraAt, extraLength } of layerRecords(bytes)) {
      const opaque = !channelIds.includes(-1);
      const end = extraAt + extraLength; // within the bytes (layerRecords)
      let p = extraAt;
      p += 4 + view.getUint32(p); // mask data
      p += 4 + view.getUint32(p); // blending ranges
      p += (1 + bytes[p] + 3) & ~3; // name, padded to 4
      let restricted: number[] | undefined;
      let knockout: RecordExtras['knockout'];
      let vmgm = false;
      let gradientMethod: InterpolationMethod | undefined;
      let unknownMethod: string | undefined;
      let unknownType: string | undefined;
      let unreadable: string | undefined;
      let effects: LayerEffectsInfo | undefined;
      let blackLevels: RecordExtras['blackLevels'];
      let blackCurve: RecordExtras['blackCurve'];
      let patternScales: RecordExtras['strokePatternScales'];
      while (p + 12 <= end) {
        const s = sig(p);
        if (s !== '8BIM' && s !== '8B64') {
          p++;
          continue;
        }
        const key = sig(p + 4);
        const wide = s === '8B64' || (large && LARGE_KEYS.has(key));
        const length = wide ? view.getUint32(p + 8) * 2 ** 32 + view.getUint32(p + 12) : view.getUint32(p + 8);
        const data = p + (wide ? 16 : 12);
        if (key === 'brst') {
          restricted = [];
          for (let q = data; q + 4 <= data + length; q += 4) restricted.push(view.getInt32(q));
        }
        if (key === 'knko' && length >= 1) knockout = bytes[data] === 2 ? 'deep' : bytes[data] ? 'shallow' : undefined;
        if (key === 'vmgm' && length >= 1) vmgm = bytes[data] !== 0;
        // 'grdm': version (2), reverse, dither, then the method's key when its first byte is not
        // 0 (older files go straight on to the name, whose 4-byte length starts with 0).
        if (key === 'grdm' && length >= 8 && bytes[data + 4] !== 0) gradientMethod = GRADIENT_METHODS[sig(data + 4)];
        if (key === 'lfx2' || key === 'lmfx') {
          // An effects block: what would stop ag-psd reading it, or it read here for Shape Burst.
          unknownMethod ??= unknownMethodIn(bytes, view, data, data + length);
          const type = unknownEnumIn(bytes, view, data, data + length, 'GrdT', (v) => GRADIENT_TYPES.has(v));
          if (type === SHAPE_BURST && !unknownMethod) {
            // Read here instead of by ag-psd (which dropped the block); the last block read wins, as
            // in ag-psd (Photoshop writes 'lfx2' and, with several of one effect, 'lmfx' after it).
            const read = effectsWithShapeBurst(bytes, data, length);
            if (typeof read === 'string') unreadable ??= read;
            else if (read) effects = read;
          } else if (type) unknownType ??= type;
          if (!unknownMethod && !unknownType && !type) unreadable ??= effectsError(bytes, data, length);
          const scales = strokePatternScales(bytes, data, length);
          if (scales !== null) patternScales = scales;
        }
        // 'levl': version (2), then records of five int16 (input black, white, output black,
        // white, gamma × 100): the composite's, then each channel's; K's is the fifth.
        if (key === 'levl' && length >= 2 + 5 * 10 && view.getUint16(data) === 2) {
          const k = data + 2 + 4 * 10;
          const at = (i: number) => view.getInt16(k + i * 2);
          const identity = at(0) === 0 && at(1) === 255 && at(2) === 0 && at(3) === 255 && at(4) === 100;
          if (!identity) blackLevels = { shadowInput: at(0), highlightInput: at(1), shadowOutput: at(2), highlightOutput: at(3), midtoneInput: at(4) / 100 };
        }
        // 'curv': a pad byte, version (2), a 4-byte channel bit set, then per set bit in order a
        // count (2) and that many points (output, input: int16 each); K's is bit 4.
        if (key === 'curv' && length >= 7) {
          const bits = view.getUint32(data + 3);
          let q = data + 7;
          for (let bit = 0; bit <= 4 && q + 2 <= data + length; bit++) {
            if (!(bits & (1 << bit))) continue;
            const n = view.getUint16(q);
            if (q + 2 + n * 4 > data + length) break;
            if (bit === 4 && n >= 2) {
              blackCurve = [];
              for (let j = 0; j < n; j++) blackCurve.push({ output: view.getInt16(q + 2 + j * 4), input: view.getInt16(q + 4 + j * 4) });
            }
            q += 2 + n * 4;
          }
        }
        p = data + length;
      }
      const extras: RecordExtras = {
        ...(restricted?.length ? { restricted } : {}),
        ...(knockout ? { knockout } : {}),
        ...(opaque ? { opaque } : {}),
        ...(vmgm ? { vectorMaskHidesEffects: true } : {}),
        ...(gradientMethod ? { gradientMethod } : {}),
        ...(unknownMethod ? { unknownEffectGradientMethod: unknownMethod } : {}),
        ...(unknownType ? { unknownEffectGradientType: unknownType } : {}),
        ...(unreadable ? { unreadableEffects: unreadable } : {}),
        ...(effects && !unknownType && !unreadable ? { effects } : {}),
        ...(blackLevels ? { blackLevels } : {}),
        ...(blackCurve ? { blackCurve } : {}),
        ...(patternScales ? { strokePatternScales: patternScales } : {}),
      };
      out.push(Object.keys(extras).length ? extras : undefined);
    }
  } catch {
    // A record we cannot walk: no restrictions rather than no template (ag-psd read it already).
  }
  return out;
}
