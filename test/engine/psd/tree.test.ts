import type { Psd } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { Unprocessable } from '../../../src/engine/errors';
import { buildTree } from '../../../src/engine/psd/tree';

describe('buildTree', () => {
  it('refuses a record it cannot read with a 422 naming the layer, not a crash', () => {
    // A vector mask whose path has no knot list (ag-psd hands over what the file holds).
    const psd = { width: 8, height: 8, children: [{ name: 'odd', vectorMask: { paths: [{ open: false }] } }] } as unknown as Psd;
    let error: unknown;
    try {
      buildTree(psd);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(Unprocessable);
    expect((error as Error).message).toMatch(/^Layer "odd" \(image layer\) could not be read/);
  });
});
