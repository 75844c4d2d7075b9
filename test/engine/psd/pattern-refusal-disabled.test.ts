import type { Layer } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { ColorMode, refuseUnreadPatterns } from '../../../src/engine/psd/color-modes';
import { Unprocessable } from '../../../src/engine/errors';

/**
 * refuseUnreadPatterns (psd/color-modes.ts, session 26) refuses an 8-bit RGB template whose layer
 * effect names a pattern psd/patterns.ts could not read (a Bitmap pattern, another depth, past the
 * 64 MB of decoded patterns, bytes that do not decode). At 6bd320b such a template compiled (ag-psd
 * dropped the pattern, the effect drew without its tile); ENGINE_VERSION 19 recompiles every
 * stored template, so one refused now fails at its next render. A disabled effect draws nothing:
 * its pattern is never tiled, and the template must not be refused for it (the compile's other
 * refusals of effects skip what is not drawn, psd/tree.ts).
 */
describe('an unreadable pattern named by an effect that draws nothing', () => {
  const unread = new Map([['b-1', 'a Bitmap pattern is not supported']]);
  const pattern = { name: 'Bits', id: 'b-1' };
  const layer = (effects: Record<string, unknown>) => ({ name: 'Fx', effects }) as unknown as Layer;

  it.each([
    ['a disabled pattern overlay', { patternOverlay: { enabled: false, present: true, pattern } }],
    ['a pattern overlay Photoshop does not show', { patternOverlay: { enabled: true, present: false, pattern } }],
    ['a disabled pattern stroke', { stroke: [{ enabled: false, present: true, fillType: 'pattern', pattern }] }],
  ])('does not refuse the template (%s)', (_, effects) => {
    expect(() => refuseUnreadPatterns([layer(effects)], new Set(), ColorMode.RGB, 8, unread)).not.toThrow();
    expect(() => refuseUnreadPatterns([layer(effects)], new Set(), ColorMode.CMYK, 8, unread)).not.toThrow();
  });

  it('still refuses one that draws it', () => {
    expect(() => refuseUnreadPatterns([layer({ patternOverlay: { enabled: true, present: true, pattern } })], new Set(), ColorMode.RGB, 8, unread)).toThrow(Unprocessable);
    expect(() => refuseUnreadPatterns([layer({ stroke: [{ enabled: true, fillType: 'pattern', pattern }] })], new Set(), ColorMode.RGB, 8, unread)).toThrow(Unprocessable);
  });
});
