import { writePsdBuffer } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { Unprocessable } from '../../../src/engine/errors';
import { parsePsd } from '../../../src/engine/psd/parse';
import { readLayerRecords } from '../../../src/engine/psd/records';
import { buildTree } from '../../../src/engine/psd/tree';
import { blackToWhite as stops, whiteSquareWith, writeShapeBurst } from './kit';

/**
 * A stroke whose gradient style ag-psd does not know (Photoshop's Shape Burst, written 'GrdT'
 * 'shapeburst'): ag-psd's enum decoder throws, its layer-info reader swallows the error and the
 * layer's whole effects block is gone. Found in the raw block and refused with a 422 naming it,
 * rather than drawn without its effects. docs/effects.md.
 */
function strokedDoc(style = 'linear', strokes = 1): Uint8Array {
  const doc = whiteSquareWith('burst', {
    dropShadow: [{ enabled: true, present: true, blendMode: 'multiply', opacity: 0.75, color: { r: 0, g: 0, b: 0 }, size: { units: 'Pixels', value: 2 }, distance: { units: 'Pixels', value: 2 }, angle: 120 }],
    stroke: Array.from({ length: strokes }, (_, i) => ({
      enabled: true,
      present: true,
      position: i ? 'inside' : 'outside',
      fillType: 'gradient',
      blendMode: 'normal',
      opacity: 1,
      size: { units: 'Pixels', value: 2 },
      // With several strokes the first is the style asked for, the rest Linear.
      gradient: { type: 'solid', name: 'g', smoothness: 1, ...stops, style: i ? 'linear' : style },
    })),
  });
  return style === 'shapeburst' ? writeShapeBurst(doc) : new Uint8Array(writePsdBuffer(doc, { generateThumbnail: false }));
}

/** Where the effects block's 'GrdT' enum values sit (their 4-character keys). */
function gradientTypeKeys(bytes: Uint8Array): number[] {
  const at: number[] = [];
  for (let i = 0; i + 12 <= bytes.length; i++) {
    if (String.fromCharCode(...bytes.subarray(i, i + 4)) === 'GrdT' && bytes[i + 4] === 0 && bytes[i + 7] === 0) at.push(i + 8);
  }
  return at;
}

describe("layer records: an effect gradient style ag-psd does not know (a stroke's Shape Burst)", () => {
  it('is found in the effects block and the layer refused with a 422 naming it', () => {
    const bytes = strokedDoc();
    expect(readLayerRecords(bytes)[0]?.unknownEffectGradientType).toBeUndefined();
    expect(parsePsd(bytes).children![0].effects?.stroke?.length).toBe(1);
    const keys = gradientTypeKeys(bytes);
    expect(keys.length).toBeGreaterThan(0);
    expect(String.fromCharCode(...bytes.subarray(keys[0], keys[0] + 4))).toBe('Lnr ');
    for (const k of keys) bytes.set([...'Shp '].map((c) => c.charCodeAt(0)), k);
    const records = readLayerRecords(bytes);
    expect(records[0]?.unknownEffectGradientType).toBe('Shp ');
    // What ag-psd makes of it: the 'lfx2' block is dropped; only what the old 'lrFX' block holds
    // (shadows, glows, bevels: no strokes) is left.
    const psd = parsePsd(bytes);
    expect(psd.children![0].effects?.stroke).toBeUndefined();
    expect(() => buildTree(psd, undefined, 72, records)).toThrow(Unprocessable);
    expect(() => buildTree(psd, undefined, 72, records)).toThrow(/Layer "burst" .*gradient style .*"Shp"/);
  });

  it('a hidden layer with one is left alone (it is not drawn)', () => {
    const bytes = strokedDoc();
    for (const k of gradientTypeKeys(bytes)) bytes.set([...'Shp '].map((c) => c.charCodeAt(0)), k);
    const psd = parsePsd(bytes);
    psd.children![0].hidden = true;
    expect(() => buildTree(psd, undefined, 72, readLayerRecords(bytes))).not.toThrow();
  });

  it('the known styles pass', () => {
    for (const style of ['linear', 'radial', 'angle', 'reflected', 'diamond']) {
      const doc = strokedDoc(style);
      expect(readLayerRecords(doc)[0]?.unknownEffectGradientType, style).toBeUndefined();
      expect(parsePsd(doc).children![0].effects?.stroke?.[0].gradient, style).toBeDefined();
    }
  });
});

describe("layer records: a stroke's Shape Burst gradient is read, not refused", () => {
  it("is written as Photoshop does ('GrdT' 'shapeburst'), which ag-psd drops the block for", () => {
    const bytes = strokedDoc('shapeburst');
    const text = String.fromCharCode(...bytes);
    expect(text).toContain('Typeenum\u0000\u0000\u0000\u0000GrdT\u0000\u0000\u0000\nshapeburst');
    // ag-psd alone: the 'lfx2' block dropped, only the old 'lrFX' block's shadow left.
    const psd = parsePsd(bytes);
    expect(psd.children![0].effects?.stroke).toBeUndefined();
    expect(psd.children![0].effects?.dropShadow?.length).toBe(1);
  });

  it("keeps the layer's effects, with the stroke's style 'shapeburst', and builds the tree", () => {
    const bytes = strokedDoc('shapeburst');
    const records = readLayerRecords(bytes);
    expect(records[0]?.unknownEffectGradientType).toBeUndefined();
    expect(records[0]?.unreadableEffects).toBeUndefined();
    const fx = records[0]?.effects;
    expect(fx?.stroke?.length).toBe(1);
    expect(fx?.stroke?.[0].gradient?.style as string).toBe('shapeburst');
    expect(fx?.stroke?.[0].position).toBe('outside');
    expect(fx?.stroke?.[0].size).toEqual({ units: 'Pixels', value: 2 });
    expect(fx?.dropShadow?.[0].distance).toEqual({ units: 'Pixels', value: 2 });
    const nodes = buildTree(parsePsd(bytes), undefined, 72, records);
    const stroke = (nodes[0].effects as typeof fx)?.stroke?.[0];
    expect(stroke?.gradient?.style as string).toBe('shapeburst');
    expect((stroke?.gradient as { colorStops?: unknown[] })?.colorStops?.length).toBe(2);
  });

  it("reads several strokes ('lmfx'), only the Shape Burst one keeping that style", () => {
    const bytes = strokedDoc('shapeburst', 2);
    const fx = readLayerRecords(bytes)[0]?.effects;
    expect(fx?.stroke?.map((st) => [st.position, st.gradient?.style])).toEqual([
      ['outside', 'shapeburst'],
      ['inside', 'linear'],
    ]);
  });

  it('a file without one is left to ag-psd', () => {
    expect(readLayerRecords(strokedDoc())[0]?.effects).toBeUndefined();
  });
});

describe('layer records: any other value ag-psd cannot decode in an effects block', () => {
  it('is found by reading the block again as ag-psd does, and refused with a 422 quoting why', () => {
    const bytes = strokedDoc();
    // The stroke's position ('FStl' enum, 'OutF'): a style ag-psd does not know.
    const at = bytes.findIndex((_, i) => String.fromCharCode(...bytes.subarray(i, i + 4)) === 'OutF');
    expect(at).toBeGreaterThan(0);
    bytes.set([...'MidF'].map((c) => c.charCodeAt(0)), at);
    const records = readLayerRecords(bytes);
    expect(records[0]?.unknownEffectGradientType).toBeUndefined();
    expect(records[0]?.unreadableEffects).toMatch(/MidF/);
    const psd = parsePsd(bytes);
    expect(psd.children![0].effects?.stroke).toBeUndefined();
    expect(() => buildTree(psd, undefined, 72, records)).toThrow(/Layer "burst" has layer effects that cannot be read .*MidF/);
  });

  it('a block ag-psd reads is left alone', () => {
    expect(readLayerRecords(strokedDoc())[0]?.unreadableEffects).toBeUndefined();
  });
});
