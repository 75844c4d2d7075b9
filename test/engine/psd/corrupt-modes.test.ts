import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { inkRender } from '../../../src/engine/composite/cmyk-ink';
import { Unprocessable } from '../../../src/engine/errors';
import { madeFixture } from '../../helpers/fixtures';

/**
 * The readers this session added (16-bit, Grayscale, CMYK, Indexed, Bitmap, PSB; the Lr16 block;
 * Lab, 32-bit floats and the Lr32 block, Multichannel inks;
 * ZIP with prediction; the colour table) against damaged files: each made fixture cut short at
 * many offsets, with bytes overwritten, and with its header's mode or depth swapped for another.
 * Compile must either succeed (and then render) or refuse the file with a 422 (Unprocessable):
 * anything else thrown is a 500 on upload. Offsets come from a fixed generator, so a failure
 * names a case that can be rebuilt.
 */

const FILES = [
  'made-rgb16.psd',
  'made-gray16.psd',
  'made-gray16.psb',
  'made-gray8.psd',
  'made-cmyk8.psd',
  'made-indexed8.psd',
  'made-bitmap1.psd',
  'made-psb-group-mask-white.psb',
  // Lab, 32-bit and Multichannel (make-x.mjs).
  'made-x-lab8.psd',
  'made-x-lab16.psd',
  'made-x-rgb32.psd',
  'made-x-gray32.psd',
  'made-x-multichannel16.psd',
];

const RICH = [
  'made-fx-glow-precise.psd',
  'made-adjust-color-lookup.psd',
  'made-adjust-selective-color.psd',
  'made-adjust-color-balance.psd',
  'made-knockout-group-base.psd',
  'made-mask-hides-effects.psd',
  'made-fx-gradient-smoothness.psd',
  'made-fx-pattern.psd',
  'made-blend-if-channels.psd',
  'made-transparency-shapes-off.psd',
  'made-blend-clipped-apart.psd',
  'made-fx-stroke-gradient.psd',
  // This session's: Shape Burst and several strokes, strokes in other modes, gradient spans, mask parameters.
  'made-y-gradient-strokes.psd',
  'made-ac-stroke-modes.psd',
  'made-ab-gradient-span.psd',
  'made-vector-mask-density.psd',
];

/**
 * CMYK documents a preview composites in ink (composite/cmyk-ink.ts, pdf/ink-composite.ts), which
 * reads the PSD's records and channels itself, apart from the compiler: damaged, each must still
 * compile or be refused, then render and composite in ink (or decline to) without throwing.
 */
const INK = [
  'made-aa-cmyk-effects.psd',
  'made-v-cmyk-modes.psd',
  'made-z-cmyk-adjust-stack.psd',
  'made-z-cmyk16-posterize.psd',
  'made-ink-stack.psd',
  'made-ink-zip.psd',
  'made-ink-alpha.psd',
  'made-cmyk8-icc.psd',
];


function random(seed: number) {
  let a = seed >>> 0;
  return (n: number) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/** `file` past its header with a lone extreme byte, a run of them, or a length word torn to a huge or tiny value. */
function overwritten(file: Uint8Array, int: (n: number) => number): { bytes: Uint8Array; what: string } {
  const bytes = file.slice();
  const at = 26 + int(file.length - 26);
  const kind = int(3);
  const value = [0, 0xff, 0x80, 1][int(4)];
  if (kind === 0) bytes[at] = value;
  else if (kind === 1) bytes.fill(value, at, Math.min(bytes.length, at + 1 + int(8)));
  else bytes[at] ^= 1 << int(8);
  return { bytes, what: `kind ${kind} at ${at} (${value})` };
}

/** Compiles `bytes`; a refusal must be a 422. Returns what happened, for the failure message. */
async function survives(bytes: Uint8Array, what: string, ink = false): Promise<void> {
  let compiled;
  try {
    compiled = await compileTemplate(env.FILES, bytes);
  } catch (e) {
    if (e instanceof Unprocessable) return;
    throw new Error(`${what}: ${(e as Error)?.constructor?.name}: ${(e as Error)?.message}`, { cause: e });
  }
  try {
    const image = await renderTemplate(env.FILES, compiled, { scale: 1 });
    expect(image.data.length).toBe(image.width * image.height * 4);
    if (ink) {
      const inked = await inkRender(bytes, compiled);
      if (inked) expect(inked.data.length).toBe(image.data.length);
    }
  } catch (e) {
    throw new Error(`${what}: compiled, then render${ink ? ' or ink' : ''} threw ${(e as Error)?.constructor?.name}: ${(e as Error)?.message}`, { cause: e });
  }
}

describe('damaged colour-mode and depth fixtures', () => {
  it.each(FILES)('%s cut short at many offsets: compiles or 422', async (name) => {
    const file = await madeFixture(name);
    const int = random(name.length * 7919 + file.length);
    // Every offset in the header and the first section lengths, then spread over the file.
    const cuts = new Set<number>([0, 1, 25, 26, 27, 29, 30, 33, 34, 37, 38, 41, 42, 45, 46, file.length - 1, file.length - 2]);
    while (cuts.size < 48) cuts.add(int(file.length));
    for (const cut of [...cuts].sort((a, b) => a - b)) await survives(file.slice(0, cut), `${name} cut at ${cut}`);
  });

  it.each(FILES)('%s with bytes overwritten: compiles or 422', async (name) => {
    const file = await madeFixture(name);
    const int = random(name.length * 104729 + file.length);
    for (let i = 0; i < 48; i++) {
      const { bytes, what } = overwritten(file, int);
      await survives(bytes, `${name} ${what}`);
    }
  });

  it.each(FILES)('%s with its mode or depth swapped in the header: compiles or 422', async (name) => {
    const file = await madeFixture(name);
    for (const mode of [0, 1, 2, 3, 4, 7, 8, 9]) {
      const bytes = file.slice();
      bytes[25] = mode;
      await survives(bytes, `${name} as mode ${mode}`);
    }
    for (const depth of [1, 8, 16, 32]) {
      const bytes = file.slice();
      bytes[23] = depth;
      await survives(bytes, `${name} at depth ${depth}`);
    }
    for (const channels of [1, 2, 3, 4, 5, 56]) {
      const bytes = file.slice();
      bytes[13] = channels;
      await survives(bytes, `${name} with ${channels} channels`);
    }
  });

  // ag-psd writes only 8-bit RGB: its feature-rich fixtures shown as another mode (Grayscale and
  // Duotone read channel 0 as grey, CMYK finds no K) reach the new modes' handling of effects,
  // adjustments, Blend If, patterns and text colours (color-modes.ts) with real records.
  it.each(RICH)('%s (8-bit RGB) shown as Grayscale, Duotone, CMYK or 16-bit: compiles or 422', async (name) => {
    const file = await madeFixture(name);
    for (const mode of [1, 4, 8]) {
      const bytes = file.slice();
      bytes[25] = mode;
      await survives(bytes, `${name} as mode ${mode}`);
    }
    const wide = file.slice();
    wide[23] = 16;
    await survives(wide, `${name} at depth 16`);
  });

  it.each(INK)('%s cut short or overwritten: compiles or 422, then renders and composites in ink', async (name) => {
    const file = await madeFixture(name);
    const int = random(name.length * 31337 + file.length);
    for (let i = 0; i < 20; i++) await survives(file.slice(0, 26 + int(file.length - 26)), `${name} cut`, true);
    for (let i = 0; i < 28; i++) {
      const { bytes, what } = overwritten(file, int);
      await survives(bytes, `${name} ${what}`, true);
    }
  });
});
