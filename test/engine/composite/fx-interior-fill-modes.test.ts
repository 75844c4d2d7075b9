import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';

/**
 * An interior effect in a mode of its own on a layer whose Fill is below 100 % blends with the
 * layer's content as the Fill leaves it over the backdrop: at Fill 0 with the backdrop itself
 * (photocraft's effects, calibrated on Photoshop's composites: interior effects "are blended onto
 * the layer after it was blended with the backdrop, inside its shape [...]; the same holds for a
 * Normal layer with fill below 100% whose interior effects use another mode (a fill-0 layer with a
 * Color Dodge bevel lightens the backdrop)"). docs/effects.md, "Interior effects in other modes
 * over a faded fill".
 */
const GREY: [number, number, number] = [128, 128, 128];
const BLUE: [number, number, number] = [0, 0, 255];
const RED: [number, number, number] = [255, 0, 0];

function doc(fillOpacity: number, fx: object, edge = 255): Uint8Array {
  const bg = { width: 40, height: 40, data: new Uint8ClampedArray(40 * 40 * 4) };
  for (let i = 0; i < 1600; i++) bg.data.set([...GREY, 255], i * 4);
  const px = { width: 20, height: 20, data: new Uint8ClampedArray(1600) };
  for (let i = 0; i < 400; i++) px.data.set([...BLUE, i % 20 === 0 ? edge : 255], i * 4);
  const layer: Layer = { name: 'square', left: 10, top: 10, imageData: px, fillOpacity, effects: fx as never };
  return writePsdUint8Array({ width: 40, height: 40, children: [{ name: 'Background', left: 0, top: 0, imageData: bg }, layer] }, { noBackground: false });
}

const render = async (bytes: Uint8Array) => renderTemplate(env.FILES, await compileTemplate(env.FILES, bytes), { scale: 1 });
const at = (img: { data: Uint8ClampedArray }, x: number, y: number) => [...img.data.slice((y * 40 + x) * 4, (y * 40 + x) * 4 + 3)];
const near = (got: number[], want: number[], tol = 1) => got.forEach((v, c) => expect(Math.abs(v - want[c]), `${got} vs ${want.map(Math.round)}`).toBeLessThanOrEqual(tol));
const multiplyOverlay = { solidFill: [{ enabled: true, present: true, blendMode: 'multiply', opacity: 1, color: { r: 255, g: 0, b: 0 } }] };
const mix = (a: number[], b: number[], t: number) => a.map((v, i) => v + (b[i] - v) * t);
const mul = (a: number[], b: number[]) => a.map((v, i) => (v * b[i]) / 255);

describe('interior effects in other modes over a faded fill', () => {
  it('a Multiply colour overlay at Fill 0 multiplies the backdrop', async () => {
    near(at(await render(doc(0, multiplyOverlay)), 20, 20), mul(GREY, RED));
  });

  it('at Fill 50 % it multiplies the content faded over the backdrop', async () => {
    const f = 128 / 255;
    near(at(await render(doc(f, multiplyOverlay)), 20, 20), mul(mix(GREY, BLUE, f), RED));
  });

  it('at Fill 100 % it multiplies the content (unchanged)', async () => {
    near(at(await render(doc(1, multiplyOverlay)), 20, 20), mul(BLUE, RED));
  });

  it('a Normal overlay at Fill 0 still covers the layer with its colour (unchanged)', async () => {
    const normal = { solidFill: [{ ...multiplyOverlay.solidFill[0], blendMode: 'normal' }] };
    near(at(await render(doc(0, normal)), 20, 20), RED);
  });
});

/**
 * An effect's own opacity in the special eight modes pulls its colour toward the mode's neutral
 * colour, as Fill does there, instead of fading it (photocraft's models, calibrated on Photoshop's
 * composites: "Neutral-color modes (Color/Linear Dodge, Burn, Difference, Vivid/Linear Light...):
 * effects and fill opacity fade the color toward the mode's neutral color rather than lowering
 * alpha"). docs/effects.md, "Effects in the special eight modes".
 */
describe('effects in the special eight modes', () => {
  const dodge = (b: number, s: number) => (s >= 255 ? 255 : Math.min(255, b / (1 - s / 255)));
  it('a Color Dodge overlay at 50 %: colorDodge(L, S · 0.5), not halfway to colorDodge(L, S)', async () => {
    const L = 100;
    const S = 200;
    const fx = { solidFill: [{ enabled: true, present: true, blendMode: 'color dodge', opacity: 0.5, color: { r: S, g: S, b: S } }] };
    const bytes = writePsdUint8Array({ width: 40, height: 40, children: [{ name: 'bg', left: 0, top: 0, imageData: { width: 40, height: 40, data: new Uint8ClampedArray(6400).fill(255) } }, { name: 'sq', left: 10, top: 10, imageData: { width: 20, height: 20, data: new Uint8ClampedArray(1600).map((_, i) => (i % 4 === 3 ? 255 : L)) }, effects: fx as never }] });
    const got = at(await render(bytes), 20, 20);
    near(got, [0, 1, 2].map(() => dodge(L, S * 0.5)));
  });

  it('at 100 % and in other modes as before', async () => {
    const L = 100;
    const fx = (mode: string, opacity: number) => ({ solidFill: [{ enabled: true, present: true, blendMode: mode, opacity, color: { r: 200, g: 200, b: 200 } }] });
    const doc1 = (f: object) => writePsdUint8Array({ width: 40, height: 40, children: [{ name: 'bg', left: 0, top: 0, imageData: { width: 40, height: 40, data: new Uint8ClampedArray(6400).fill(255) } }, { name: 'sq', left: 10, top: 10, imageData: { width: 20, height: 20, data: new Uint8ClampedArray(1600).map((_, i) => (i % 4 === 3 ? 255 : L)) }, effects: f as never }] });
    near(at(await render(doc1(fx('color dodge', 1))), 20, 20), [255, 255, 255]);
    near(at(await render(doc1(fx('multiply', 0.5))), 20, 20), [0, 1, 2].map(() => L + ((L * 200) / 255 - L) * 0.5));
  });
});
