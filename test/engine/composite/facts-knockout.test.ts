import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { readLayerRecords } from '../../../src/engine/psd/records';
import { type RGB, solid } from './kit';

/**
 * Photoshop 2026's own renders of psd-tools' knockout fixtures (tests/psd_files/transparency/
 * knockout-*.psd, sampled at (16, 16) in tests/psd_tools/composite/test_composite.py,
 * `_KNOCKOUT_CASES`, issue psd-tools#707). Each stack is: white Background / red layer / group
 * at Fill 50 % holding blue; the "nested" ones put the group beside a green sibling inside an
 * `Outer` group. The expected pixels are Photoshop's, within 2 levels as psd-tools holds them.
 */
const WHITE: RGB = [255, 255, 255];
const CYAN: RGB = [0, 255, 255];
const RED: RGB = [255, 0, 0];
const GREEN: RGB = [0, 255, 0];
const BLUE: RGB = [0, 0, 255];
const W = 4;
const HALF = 128 / 255;

const layer = (name: string, c: RGB, extra: Partial<Layer> = {}): Layer => ({ name, left: 0, top: 0, imageData: solid(c, W), ...extra });

/** Photoshop writes knko 2 for deep; ag-psd writes only 0/1. Sets every knko block to deep. */
function deepen(bytes: Uint8Array): Uint8Array {
  const key = [...'8BIMknko'].map((c) => c.charCodeAt(0));
  let seen = 0;
  for (let i = 0; i + 12 < bytes.length; i++) if (key.every((k, j) => bytes[i + j] === k) && bytes[i + 12]) (bytes[i + 12] = 2), seen++;
  if (!seen) throw new Error('no knko block');
  return bytes;
}

type Knock = 'none' | 'shallow' | 'deep';
interface Case {
  knock: Knock;
  group: 'normal' | 'pass through';
  outer?: 'normal' | 'pass through';
  bottom?: RGB;
  noBackground?: boolean;
  /** Written Normal and made pass-through in the compiled tree: the compiler refuses a
   *  pass-through group's knockout until the lead applies composite-facts-unsupported.patch. */
  passThroughAfter?: boolean;
}

function build({ knock, group, outer, bottom = WHITE, noBackground }: Case): Uint8Array {
  const g: Layer = { name: 'G', blendMode: group, fillOpacity: HALF, knockout: knock !== 'none', children: [layer('blue', BLUE)] } as Layer;
  const top: Layer = outer ? ({ name: 'Outer', blendMode: outer, children: [layer('green', GREEN), g] } as Layer) : g;
  // Without a Background the bottom layer keeps a transparency channel: one pixel at alpha 254.
  const base = layer(noBackground ? 'Layer 0' : 'Background', bottom);
  if (noBackground) base.imageData!.data[(W - 1) * 4 + 3] = 254;
  const bytes = writePsdUint8Array({ width: W, height: 1, children: [base, layer('red', RED), top] });
  return knock === 'deep' ? deepen(bytes) : bytes;
}

async function pixel(c: Case): Promise<number[]> {
  const compiled = await compileTemplate(env.FILES, build(c));
  if (c.passThroughAfter) {
    const g = compiled.layers.find((n) => n.name === 'G')!;
    expect(g.blendMode).toBe('normal');
    g.blendMode = 'pass through';
  }
  const img = await renderTemplate(env.FILES, compiled, { scale: 1, background: 'transparent' });
  return [...img.data.subarray(4, 8)];
}

const close = (got: number[], want: number[]) => got.every((v, i) => Math.abs(v - want[i]) <= 2);

describe("knockout: Photoshop's renders of psd-tools' knockout fixtures", () => {
  it('builds the structures it means to (Background opaque; deep written as knko 2)', () => {
    expect(readLayerRecords(build({ knock: 'deep', group: 'normal' }))[0]).toEqual({ opaque: true });
    expect(readLayerRecords(build({ knock: 'deep', group: 'normal', noBackground: true }))[0]).toBeFalsy();
    expect(readLayerRecords(build({ knock: 'deep', group: 'normal' })).filter((r) => r?.knockout)).toEqual([{ knockout: 'deep' }]);
  });

  const cases: [string, Case, number[]][] = [
    ['knockout-none-normal', { knock: 'none', group: 'normal' }, [127, 0, 128, 255]],
    ['knockout-none-passthrough', { knock: 'none', group: 'pass through' }, [127, 0, 128, 255]],
    ['knockout-none-nested', { knock: 'none', group: 'normal', outer: 'normal' }, [0, 127, 128, 255]],
    ['knockout-none-cyanbg', { knock: 'none', group: 'normal', bottom: CYAN }, [127, 0, 128, 255]],
    ['knockout-shallow-nested', { knock: 'shallow', group: 'normal', outer: 'normal' }, [127, 0, 128, 255]],
    ['knockout-shallow-nested-pt', { knock: 'shallow', group: 'normal', outer: 'pass through' }, [127, 0, 128, 255]],
    ['knockout-deep-nested', { knock: 'deep', group: 'normal', outer: 'normal' }, [127, 0, 128, 255]],
    ['knockout-deep-cyanbg', { knock: 'deep', group: 'normal', bottom: CYAN }, [0, 127, 255, 255]],
    ['knockout-deep-normal', { knock: 'deep', group: 'normal' }, [127, 127, 255, 255]],
    ['knockout-deep-passthrough', { knock: 'deep', group: 'normal', passThroughAfter: true }, [127, 127, 255, 255]],
    ['knockout-deep-nested-pt', { knock: 'deep', group: 'normal', outer: 'pass through' }, [127, 127, 255, 255]],
    ['knockout-deep-nobg', { knock: 'deep', group: 'normal', noBackground: true }, [0, 0, 255, 128]],
  ];
  for (const [name, c, want] of cases) {
    it(`${name}: ${want.join(', ')}`, async () => {
      const got = await pixel(c);
      expect(close(got, want), `${name}: Photoshop ${want}, ours ${got}`).toBe(true);
    });
  }
});
