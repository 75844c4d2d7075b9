import { describe, expect, it } from 'vitest';
import { parseColor } from '../../../src/engine/personalise/color';

describe('parseColor (rendering contract colours)', () => {
  it.each([
    ['#336699', { r: 0x33, g: 0x66, b: 0x99, a: 1 }],
    ['#FfF', { r: 255, g: 255, b: 255, a: 1 }],
    ['#0a0', { r: 0, g: 0xaa, b: 0, a: 1 }],
    ['rgb(10, 20, 30)', { r: 10, g: 20, b: 30, a: 1 }],
    ['RGB(10,20,30)', { r: 10, g: 20, b: 30, a: 1 }],
    ['rgba(255, 0, 0, 0.5)', { r: 255, g: 0, b: 0, a: 0.5 }],
    ['rgba(0,0,0,0)', { r: 0, g: 0, b: 0, a: 0 }],
    [' #000000 ', { r: 0, g: 0, b: 0, a: 1 }],
  ])('accepts %s', (input, expected) => {
    expect(parseColor(input)).toEqual(expected);
  });

  // Reference: transicc -n -s -t1 -b -i assets/icc/CoatedFOGRA39-Argyll.icc -o <srgbProfile()>
  // (LittleCMS 2.14): 255 255 254.9 · 28.5 28.0 26.6 · 0 150.0 64.2 · 206.4 123.7 0.
  it.each([
    ['cmyk(0, 0, 0, 0)', [255, 255, 255]],
    ['cmyk(0,0,0,100)', [28.5, 28.0, 26.6]],
    ['cmyk(100, 0, 100, 0)', [0, 150.0, 64.2]],
    ['cmyk(0, 50, 100, 20)', [206.4, 123.7, 0]],
  ])('converts %s through the default CMYK profile (LittleCMS, relative colorimetric + BPC)', (input, want) => {
    const got = parseColor(input) as { r: number; g: number; b: number; a: number };
    expect(got.a).toBe(1);
    [got.r, got.g, got.b].forEach((v, i) => expect(Math.abs(v - want[i]), `${input} channel ${i}: ${v}`).toBeLessThanOrEqual(1));
  });

  it.each([
    'red',
    '#12345',
    '#1234567',
    '#ggg',
    'rgb(1,2)',
    'rgb(1,2,3,4)',
    'rgba(1,2,3)',
    'rgb(256,0,0)',
    'rgb(-1,0,0)',
    'rgba(0,0,0,1.5)',
    'cmyk(0,0,0)',
    'cmyk(101,0,0,0)',
    'hsl(0, 100%, 50%)',
    '',
  ])('refuses %j with a reason', (input) => {
    const result = parseColor(input);
    expect(result).toHaveProperty('error');
    expect((result as { error: string }).error.length).toBeGreaterThan(5);
  });
});
