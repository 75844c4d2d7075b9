import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate } from '../../../src/engine';
import { inkLayers } from '../../../src/engine/pdf/ink-composite';
import type { CompiledTemplate, LayerNode } from '../../../src/engine/types';
import { madeFixture } from '../../helpers/fixtures';

/**
 * What the ink compositor leaves to the RGB fallback as the RGB compositor learnt Photoshop's
 * rules (issue 25 §2, docs/fidelity.md "Compositing facts from psd-tools' tests"): a pass-through
 * group below Fill 100 % is composited apart over its backdrop, and a solid-colour shape with a
 * soft vector mask is drawn from its fill and path; drawing either from the stored channels in
 * place would not be Photoshop's, so their reach is reported unmodelled.
 */
const walk = (nodes: LayerNode[]): LayerNode[] => nodes.flatMap((n) => [n, ...walk(n.children ?? [])]);
const area = (c: CompiledTemplate) => ({ left: 0, top: 0, right: c.width, bottom: c.height });

async function unmodelledPixels(name: string, change: (nodes: LayerNode[]) => void): Promise<[number, number]> {
  const psd = await madeFixture(name);
  const compiled = await compileTemplate(env.FILES, psd);
  const before = inkLayers(psd, compiled)!.composite(area(compiled), new Map(), () => null).unmodelled;
  change(walk(compiled.layers));
  const after = inkLayers(psd, compiled)!.composite(area(compiled), new Map(), () => null).unmodelled;
  const count = (a: Uint8Array) => a.reduce((s, v) => s + (v ? 1 : 0), 0);
  return [count(before), count(after)];
}

describe('the ink compositor falls back where the RGB one draws by other rules', () => {
  it('a pass-through group below Fill 100 %', async () => {
    const [before, after] = await unmodelledPixels('made-ink-stack.psd', (nodes) => {
      const group = nodes.find((n) => n.children && n.blendMode === 'pass through')!;
      expect(group).toBeDefined();
      group.fillOpacity = 0.5;
    });
    expect(before).toBe(0);
    expect(after).toBe(24 * 16);
  });

  it('a solid-colour shape whose vector mask has a density below 100 %', async () => {
    const [before, after] = await unmodelledPixels('made-ink-shape.psd', (nodes) => {
      const shape = nodes.find((n) => n.type === 'Shape' && n.vectorMask)!;
      expect(shape).toBeDefined();
      shape.vectorMask = { ...shape.vectorMask!, density: 0.5 };
    });
    expect(before).toBe(0);
    expect(after).toBeGreaterThan(0);
  });
});
