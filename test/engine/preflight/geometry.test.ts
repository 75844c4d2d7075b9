import { describe, expect, it } from 'vitest';
import { layerSettings } from '../../../src/engine/preflight/layer-settings';
import { printGeometry } from '../../../src/engine/preflight/template';

describe('printGeometry: what the layer checks know of print size', () => {
  it('the trim is the canvas inset by the declared bleed, at the template’s ppi', () => {
    const g = printGeometry({ width: 1075, height: 720, resolution: 300 }, '3mm');
    expect(g.resolution).toBe(300);
    const inset = (3 / 25.4) * 300;
    expect(g.trim).toEqual({ left: inset, top: inset, right: 1075 - inset, bottom: 720 - inset });
    expect(printGeometry({ width: 100, height: 100, resolution: 72 }, '10px').trim).toEqual({ left: 10, top: 10, right: 90, bottom: 90 });
  });

  it('without a bleed the trim is absent (the canvas); a template without ppi counts as 72', () => {
    expect(printGeometry({ width: 400, height: 400, resolution: 300 }, undefined)).toEqual({ resolution: 300 });
    expect(printGeometry({ width: 400, height: 400, resolution: 0 }, '0mm')).toEqual({ resolution: 72 });
  });
});

describe('layerSettings: the markers of a layer name, defaults filled in', () => {
  it('text layers: fit, minSize, maxWidth, required and the name data may use', () => {
    expect(layerSettings({ name: 'Name <TOS_fitToBox> <MW_560> <FMIN_9> <REQ>', type: 'Text' })).toEqual({ dataName: 'Name', fit: 'shrink', minSize: 9, maxWidth: 560, required: true });
    expect(layerSettings({ name: 'Title <tos_FitToWidth>', type: 'Text' })).toMatchObject({ dataName: 'Title', fit: 'shrinkToLine', required: false });
    expect(layerSettings({ name: 'Plain', type: 'Text' })).toEqual({ fit: 'none', minSize: undefined, maxWidth: undefined, required: false });
  });

  it('picture layers: required and the ppi threshold (200 unless set); other layers none', () => {
    expect(layerSettings({ name: 'Photo <PPI_300>', type: 'SmartObject' })).toEqual({ dataName: 'Photo', required: false, ppi: 300 });
    expect(layerSettings({ name: 'Logo', type: 'Image' })).toEqual({ required: false, ppi: 200 });
    expect(layerSettings({ name: 'Card <REQ>', type: 'Group' })).toBeNull();
    expect(layerSettings({ name: 'Shape', type: 'Shape' })).toBeNull();
  });
});
