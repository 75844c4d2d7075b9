import { writePsdUint8Array, type Layer, type LayerCompCapturedInfo, type Psd } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';

/**
 * Layer comps (docs/fidelity.md, "Layer comps"): Photoshop applies a comp by changing the layers,
 * so the layer records hold the document's current state, which may differ from the last applied
 * comp. Renders follow the records; the comps' per-layer settings never move or hide anything.
 */

const W = 16;
const H = 8;
const BG = [200, 100, 50];
const RED = [255, 0, 0];

function fill(c: number[], w: number, h: number) {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < w * h; i++) data.set([...c, 255], i * 4);
  return { width: w, height: h, data };
}

/** bg, and red over columns 0..7; comp 1 hides red, comp 2 shows it moved 8 px right. */
function document(redHidden: boolean, lastApplied: number): Psd {
  const red: Layer = {
    id: 2,
    name: 'red',
    top: 0,
    left: 0,
    hidden: redHidden,
    imageData: fill(RED, 8, H),
    comps: { settings: [{ compList: [1], enabled: false }, { compList: [2], enabled: true, offset: { x: 8, y: 0 } }] },
  };
  return {
    width: W,
    height: H,
    imageResources: {
      // capturedInfo: 1 visibility, 3 visibility and position.
      layerComps: { list: [{ id: 1, name: 'hidden', capturedInfo: 1 }, { id: 2, name: 'moved', capturedInfo: 3 as LayerCompCapturedInfo }], lastApplied },
    },
    children: [{ id: 1, name: 'bg', top: 0, left: 0, imageData: fill(BG, W, H) }, red],
  };
}

async function render(psd: Psd) {
  const compiled = await compileTemplate(env.FILES, writePsdUint8Array(psd));
  const img = await renderTemplate(env.FILES, compiled, { scale: 1 });
  return (x: number, y: number) => [...img.data.subarray((y * W + x) * 4, (y * W + x) * 4 + 3)];
}

describe('layer comps', () => {
  it('the current state wins over the last applied comp that hid a layer', async () => {
    const at = await render(document(false, 1));
    expect(at(2, 2)).toEqual(RED);
    expect(at(12, 2)).toEqual(BG);
  });

  it('a comp that moved a layer does not move it when the records hold it in place', async () => {
    const at = await render(document(false, 2));
    expect(at(2, 2)).toEqual(RED);
    expect(at(12, 2)).toEqual(BG);
  });

  it('a layer hidden in the current state stays hidden whatever the comps say', async () => {
    const at = await render(document(true, 2));
    expect(at(2, 2)).toEqual(BG);
    expect(at(12, 2)).toEqual(BG);
  });
});
