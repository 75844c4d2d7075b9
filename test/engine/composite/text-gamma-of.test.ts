import { describe, expect, it } from 'vitest';
import { textGammaOf } from '../../../src/engine/composite/effects';
import type { TextInfo } from '../../../src/engine/types';

const text = (font: string, runs: string[] = []): TextInfo => ({
  text: 'x',
  font,
  size: 12,
  color: '#000000',
  ...(runs.length ? { runs: runs.map((f) => ({ length: 1, font: f, size: 12, color: '#000000' })) } : {}),
});

describe('textGammaOf', () => {
  it('gives text layers the document text gamma, other layers none', () => {
    expect(textGammaOf(1.45, { type: 'Text', text: text('ArialMT') })).toBe(1.45);
    expect(textGammaOf(1.45, { type: 'Image' })).toBeUndefined();
    expect(textGammaOf(1, { type: 'Text', text: text('ArialMT') })).toBeUndefined();
    expect(textGammaOf(undefined, { type: 'Text', text: text('ArialMT') })).toBeUndefined();
  });

  it('leaves text set wholly in a colour emoji font to blend linearly, as Photoshop does', () => {
    expect(textGammaOf(1.45, { type: 'Text', text: text('AppleColorEmoji') })).toBeUndefined();
    expect(textGammaOf(1.45, { type: 'Text', text: text('AppleColorEmoji', ['AppleColorEmoji', 'NotoColorEmoji']) })).toBeUndefined();
    // Letters with an emoji among them keep the gamma (their edges are text colour).
    expect(textGammaOf(1.45, { type: 'Text', text: text('ArialMT', ['ArialMT', 'AppleColorEmoji']) })).toBe(1.45);
  });
});
