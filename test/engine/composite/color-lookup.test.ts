import { env } from 'cloudflare:workers';
import type { Layer } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { Unprocessable } from '../../../src/engine/errors';
import { applyAdjustment } from '../../../src/engine/composite/adjust';
import { colorLookupRefusal, compileColorLookup, parseLut } from '../../../src/engine/composite/color-lookup';

/**
 * Colour Lookup (docs/fidelity.md, "Colour Lookup"): the layer's embedded 3D LUT file (.cube,
 * .3dl, .csp) parsed at upload and applied by trilinear interpolation on the 8-bit values, through
 * the file's domain or pre-LUT, in the file's order unless Photoshop's table/data order overrides
 * it; ICC profiles (abstract, device link), LOOK files and what cannot be read are refused.
 */
const enc = (s: string) => new TextEncoder().encode(s);
type Fn = (r: number, g: number, b: number) => [number, number, number];

/** A .cube of size n sampling f at the nodes (red fastest), with extra header lines. */
function cube(n: number, f: Fn, header = ''): string {
  const rows: string[] = [];
  for (let b = 0; b < n; b++)
    for (let g = 0; g < n; g++) for (let r = 0; r < n; r++) rows.push(f(r / (n - 1), g / (n - 1), b / (n - 1)).map((v) => v.toFixed(6)).join(' '));
  return `TITLE "test"\n# a comment\n${header}LUT_3D_SIZE ${n}\n${rows.join('\n')}\n`;
}

/** A Lustre .3dl of size 17 sampling f (blue fastest), 10-bit input mesh, 12-bit output. */
function lustre(f: Fn, mesh = Array.from({ length: 17 }, (_, i) => Math.min(1023, i * 64))): string {
  const rows: string[] = [];
  for (let r = 0; r < 17; r++)
    for (let g = 0; g < 17; g++) for (let b = 0; b < 17; b++) rows.push(f(r / 16, g / 16, b / 16).map((v) => Math.round(v * 4095)).join(' '));
  return `#Tokens required by applications - do not edit\n3DMESH\nMesh 4 12\n${mesh.join(' ')}\n\n${rows.join('\n')}\n\nLUT8\ngamma 1.0\n`;
}

function apply(adj: Record<string, unknown>, ...rgb: number[]): number[] {
  const compiled = compileColorLookup({ type: 'color lookup', lookupType: '3dlut', ...adj });
  expect(compiled.unreadable).toBeUndefined();
  // Through JSON, as the compiled tree is stored.
  const stored = JSON.parse(JSON.stringify(compiled));
  const d = new Uint8ClampedArray([...rgb, 255]);
  expect(applyAdjustment(stored, d)).toBe(true);
  return [...d.subarray(0, 3)];
}
const fileOf = (text: string, lutFormat?: 'cube' | '3dl') => ({ lut3DFileData: enc(text), ...(lutFormat ? { lutFormat } : {}) });
const near = (a: number[], b: number[], tol = 1) => b.forEach((v, i) => expect(Math.abs(a[i] - v), `${a} vs ${b}`).toBeLessThanOrEqual(tol));

describe('colour lookup: reading LUT files', () => {
  it('a .cube of size 2 is exact on a multilinear function (trilinear reproduces it)', () => {
    // R' = 1 − r, G' = g·b, B' = 0.2 + 0.6·r on (200, 100, 50): 55, 100·50/255 = 19.6, 51 + 120.
    const f: Fn = (r, g, b) => [1 - r, g * b, 0.2 + 0.6 * r];
    expect(apply(fileOf(cube(2, f), 'cube'), 200, 100, 50)).toEqual([55, 20, 171]);
  });

  it('interpolates trilinearly between the eight nodes around a colour', () => {
    // A size-3 cube whose middle node is white, the rest the identity: (191, 128, 64) lies in the
    // cell from (1, 1, 0) to (2, 2, 1), at (0.498, 0.004, 0.502) within it.
    const f: Fn = (r, g, b) => (r === 0.5 && g === 0.5 && b === 0.5 ? [1, 1, 1] : [r, g, b]);
    const nodes = (r: number, g: number, b: number) => f(r / 2, g / 2, b / 2);
    const px = [191, 128, 64];
    const p = px.map((v) => (v / 255) * 2);
    const i = p.map((v) => Math.min(1, Math.floor(v)));
    const t = p.map((v, k) => v - i[k]);
    const want = [0, 0, 0];
    for (let corner = 0; corner < 8; corner++) {
      const o = [corner & 1, (corner >> 1) & 1, (corner >> 2) & 1];
      const w = o.reduce((acc, bit, k) => acc * (bit ? t[k] : 1 - t[k]), 1);
      const n = nodes(i[0] + o[0], i[1] + o[1], i[2] + o[2]);
      for (let c = 0; c < 3; c++) want[c] += w * n[c] * 255;
    }
    near(apply(fileOf(cube(3, f)), ...px), want, 0.51);
    // The node itself comes out exactly.
    expect(apply(fileOf(cube(3, f)), 255, 255, 255)).toEqual([255, 255, 255]);
  });

  it('a .3dl is read blue fastest, at its Mesh line’s output depth', () => {
    // R' = b, G' = r, B' = g.
    expect(apply(fileOf(lustre((r, g, b) => [b, r, g]), '3dl'), 200, 100, 50)).toEqual([50, 200, 100]);
    // Without a LUTFormat the text tells: no LUT_3D_SIZE, so .3dl.
    expect(apply(fileOf(lustre((r, g, b) => [b, r, g])), 200, 100, 50)).toEqual([50, 200, 100]);
  });

  it('reads a 65³ .3dl (no limit of a call’s argument count on 824,000 values)', () => {
    const rows: string[] = [];
    for (let r = 0; r < 65; r++) for (let g = 0; g < 65; g++) for (let b = 0; b < 65; b++) rows.push(`${b * 16} ${r * 16} ${g * 16}`);
    // Largest value 1024: read as 10-bit (1023), so the channel rotation is 1024/1023 of itself.
    near(apply(fileOf(`${rows.join('\n')}\n`), 200, 100, 50), [50, 200, 100]);
  });

  it('a .3dl without a Mesh line takes its output depth from its largest value (12-bit here)', () => {
    const text = lustre((r, g, b) => [b, r, g]).replace('Mesh 4 12\n', '');
    expect(apply(fileOf(text), 200, 100, 50)).toEqual([50, 200, 100]);
  });

  it('honours Photoshop’s table order (rgb: blue fastest) and data order (bgr: values B G R)', () => {
    const redOnly = cube(2, (r) => [r, 0, 0]);
    expect(apply({ ...fileOf(redOnly), tableOrder: 'bgr', dataOrder: 'rgb' }, 200, 100, 50)).toEqual([200, 0, 0]);
    // Read blue fastest, the node of (r, g, b) is the file's entry for (b, g, r).
    expect(apply({ ...fileOf(redOnly), tableOrder: 'rgb' }, 200, 100, 50)).toEqual([50, 0, 0]);
    expect(apply({ ...fileOf(redOnly), dataOrder: 'bgr' }, 200, 100, 50)).toEqual([0, 0, 200]);
  });

  it('a .cube’s domain stretches the input; beyond it the edge node holds', () => {
    const id = cube(2, (r, g, b) => [r, g, b], 'DOMAIN_MIN 0 0 0\nDOMAIN_MAX 0.5 0.5 0.5\n');
    expect(apply(fileOf(id), 200, 100, 50)).toEqual([255, 200, 100]);
  });

  it('a 1D .cube maps each channel on its own', () => {
    expect(apply(fileOf('LUT_1D_SIZE 2\n1 1 1\n0 0 0\n'), 200, 100, 50)).toEqual([55, 155, 205]);
  });

  it('a .csp applies its pre-LUT before the cube', () => {
    const rows = [];
    for (let b = 0; b < 2; b++) for (let g = 0; g < 2; g++) for (let r = 0; r < 2; r++) rows.push(`${r} ${g} ${b}`);
    const csp = `CSPLUTV100\n3D\n\nBEGIN METADATA\nmade for a test\nEND METADATA\n\n2\n0.0 0.5\n0.0 1.0\n2\n0 1\n0 1\n2\n0 1\n0 1\n\n2 2 2\n${rows.join('\n')}\n`;
    expect(apply(fileOf(csp), 100, 100, 50)).toEqual([200, 100, 50]);
    expect(apply(fileOf(csp), 200, 100, 50)).toEqual([255, 100, 50]);
  });
});

describe('colour lookup: what is refused', () => {
  const refusal = (adj: Record<string, unknown>) => colorLookupRefusal(compileColorLookup({ type: 'color lookup', ...adj }));

  it('refuses ICC profiles, LOOK files and files it cannot read, naming the kind', () => {
    const profile = new Uint8Array([0, 0, 1, 0]);
    expect(refusal({ lookupType: 'abstractProfile', profile })).toBe('colour lookup (abstract profile)');
    expect(refusal({ lookupType: 'deviceLinkProfile', profile })).toBe('colour lookup (device link profile)');
    expect(refusal({ lookupType: '3dlut', lutFormat: 'look', lut3DFileData: enc('<?xml version="1.0"?><look/>') })).toBe('colour lookup (LOOK file)');
    expect(refusal({ lookupType: '3dlut', lutFormat: 'cube', lut3DFileData: enc('LUT_3D_SIZE 2\n0 0 0\n') })).toMatch(/^colour lookup \(CUBE file with 1 entries/);
    const uneven = lustre((r, g, b) => [r, g, b], [0, 10, 20, ...Array.from({ length: 14 }, (_, i) => 64 * (i + 3))]);
    expect(refusal({ lookupType: '3dlut', lutFormat: '3dl', lut3DFileData: enc(uneven) })).toBe('colour lookup (3DL file with uneven input values)');
    expect(refusal({ lookupType: '3dlut', profile })).toBe('colour lookup (3D LUT without its file)');
    // What ag-psd keeps of a record it stopped reading at an unknown LUT format: the name only.
    expect(refusal({ lookupType: '3dlut', name: 'Film.csp' })).toBe('colour lookup ("Film.csp", not readable)');
  });

  it('a lookup with no table chosen changes nothing and is not refused', () => {
    const adj = compileColorLookup({ type: 'color lookup', lookupType: '3dlut' });
    expect(colorLookupRefusal(adj)).toBeUndefined();
    const d = new Uint8ClampedArray([200, 100, 50, 255]);
    expect(applyAdjustment(adj, d)).toBe(false);
    expect([...d]).toEqual([200, 100, 50, 255]);
  });

  it('keeps neither the file’s nor the profile’s bytes in the compiled form', () => {
    const compiled = compileColorLookup({
      type: 'color lookup',
      lookupType: '3dlut',
      profile: new Uint8Array(64),
      lut3DFileData: enc(cube(2, (r, g, b) => [r, g, b])),
      lut3DFileName: 'id.cube',
    });
    expect(Object.keys(compiled).sort()).toEqual(['lookupType', 'lut', 'lut3DFileName', 'type']);
    expect(compiled.lut).toMatchObject({ dims: 3, size: 2 });
  });
});

describe('colour lookup layers in a template', () => {
  const W = 8, H = 4;
  const solid = (c: number[]) => {
    const data = new Uint8ClampedArray(W * H * 4);
    for (let i = 0; i < W * H; i++) data.set([...c, 255], i * 4);
    return { width: W, height: H, data };
  };
  const psd = async (children: Layer[]) => {
    const { writePsdUint8Array } = await import('ag-psd');
    return writePsdUint8Array({ width: W, height: H, children, imageData: solid([128, 128, 128]) });
  };
  const bg = (): Layer => ({ name: 'bg', left: 0, top: 0, right: W, bottom: H, imageData: solid([200, 100, 50]) });

  it('compile with the table parsed and render through it', async () => {
    const lut3DFileData = enc(cube(2, (r, g, b) => [1 - r, g * b, 0.2 + 0.6 * r]));
    const compiled = await compileTemplate(env.FILES, await psd([bg(), { name: 'Look', adjustment: { type: 'color lookup', lookupType: '3dlut', lutFormat: 'cube', lut3DFileData } }]));
    const image = await renderTemplate(env.FILES, compiled, { scale: 1 });
    expect([...image.data.subarray(0, 4)]).toEqual([55, 20, 171, 255]);
  });

  it('refuse a lookup whose LUT format ag-psd does not know (it keeps the name only), not skip it', async () => {
    const bytes = await psd([bg(), { name: 'Film', adjustment: { type: 'color lookup', lookupType: '3dlut', name: 'Film.csp', lutFormat: 'look', lut3DFileData: enc('CSPLUTV100') } }]);
    // A format value of the same length ag-psd cannot decode, as a later Photoshop might write.
    const at = new TextDecoder('latin1').decode(bytes).indexOf('LUTFormatLOOK');
    expect(at).toBeGreaterThan(0);
    bytes.set(enc('LUTFormatCSPX'), at);
    const e = await compileTemplate(env.FILES, bytes).then(() => null, (err: unknown) => err);
    expect(e).toBeInstanceOf(Unprocessable);
    expect((e as Unprocessable).details).toContainEqual({ path: 'layers.Film', reason: 'colour lookup ("Film.csp", not readable)' });
  });

  it('refuse an abstract profile with a 422 naming the layer and the kind', async () => {
    const bytes = await psd([bg(), { name: 'Grade', adjustment: { type: 'color lookup', lookupType: 'abstractProfile', profile: new Uint8Array(128) } }]);
    const e = await compileTemplate(env.FILES, bytes).then(() => null, (err: unknown) => err);
    expect(e).toBeInstanceOf(Unprocessable);
    expect((e as Unprocessable).details).toContainEqual({ path: 'layers.Grade', reason: 'colour lookup (abstract profile)' });
    // Hidden, it is not drawn, so not refused.
    await compileTemplate(env.FILES, await psd([bg(), { name: 'Grade', hidden: true, adjustment: { type: 'color lookup', lookupType: 'abstractProfile', profile: new Uint8Array(128) } }]));
  });
});
