/**
 * The business card of docs/design-atoms.md: two print areas (front and back side by side on one
 * surface), 12 items, 2 images, 4 text items. Used by the PDF tests (raster vs preview) and to
 * render docs/design-atoms-example.png.
 */
export const BUSINESS_CARD = {
  version: 1,
  surfaces: [
    {
      id: 'card',
      name: 'Business card',
      width: 540,
      height: 180,
      printAreas: [
        { id: 'front', name: 'Front', bounds: { x: 10, y: 15, width: 252, height: 144 }, bleed: { left: 9, top: 9, right: 9, bottom: 9 }, shape: 'RoundedRectangle', cornerRadius: 12 },
        { id: 'back', name: 'Back', bounds: { x: 278, y: 15, width: 252, height: 144 }, bleed: { left: 9, top: 9, right: 9, bottom: 9 } },
      ],
      containers: [
        {
          id: 'background',
          name: 'Background',
          locked: true,
          items: [
            { id: 'front-bg', type: 'Rectangle', name: 'Front background', x: 1, y: 6, width: 270, height: 162, fillColor: '#f7f3ea' },
            { id: 'back-bg', type: 'Rectangle', name: 'Back background', x: 269, y: 6, width: 270, height: 162, fillColor: 'cmyk(100,60,0,40)' },
          ],
        },
        {
          id: 'content',
          name: 'Content',
          items: [
            { id: 'band', type: 'Rectangle', name: 'Band', x: 1, y: 120, width: 270, height: 48, fillColor: 'cmyk(0,70,100,0)' },
            { id: 'dot', type: 'Ellipse', name: 'Dot', x: 215, y: 30, width: 34, height: 34, fillColor: '#ffffff', borderColor: 'cmyk(0,70,100,0)', borderWidth: 4 },
            { id: 'tilt', type: 'Rectangle', name: 'Tilted square', x: 222, y: 80, width: 20, height: 20, fillColor: 'rgba(0,90,160,0.6)', rotation: 30, cornerRadius: 4 },
            { id: 'logo', type: 'Image', name: 'Logo', x: 26, y: 28, width: 48, height: 48, fitMode: 'Fit', source: { type: 'Embedded', key: 'logo.png' } },
            { id: 'name', type: 'Text', name: 'Name', isVariable: true, x: 26, y: 84, width: 180, height: 24, text: 'Ada Lovelace', placeholder: 'Your name', font: { postscriptName: 'LiberationSans-Bold', size: 18 }, color: '#1d2b3a', constraints: { maxLength: 40, required: true } },
            { id: 'role', type: 'Text', name: 'Role', x: 26, y: 104, width: 180, height: 16, text: 'Analyst & Programmer', font: { postscriptName: 'LiberationSans', size: 10 }, color: '#555555', letterSpacing: 0.5 },
            { id: 'contact', type: 'Text', name: 'Contact', x: 16, y: 130, width: 240, height: 30, text: 'ada@example.com · +44 20 7946 0000', font: { postscriptName: 'LiberationSans', size: 9 }, color: '#ffffff', alignment: 'Center', verticalAlignment: 'Middle' },
            {
              id: 'back-group', type: 'Group', name: 'Back side', x: 278, y: 15, width: 252, height: 144,
              items: [
                { id: 'photo', type: 'Image', name: 'Photo', isVariable: true, x: 300, y: 35, width: 100, height: 100, fitMode: 'Fill', source: { type: 'Embedded', key: 'photo.jpg' }, constraints: { allowedFolder: '/photos' } },
                { id: 'motto', type: 'Text', name: 'Motto', x: 410, y: 40, width: 105, height: 90, text: 'The Analytical Engine weaves algebraic patterns', font: { postscriptName: 'LiberationSerif', size: 14 }, color: 'cmyk(0,0,0,0)', fit: 'ShrinkToFit', alignment: 'Justify' },
              ],
            },
          ],
        },
      ],
    },
  ],
};

/** A 96 × 96 logo: an orange disc with a transparent outside (PNG), and a 400 × 300 photo (JPEG). */
export function logoPixels() {
  const w = 96;
  const data = new Uint8ClampedArray(w * w * 4);
  for (let y = 0; y < w; y++)
    for (let x = 0; x < w; x++) {
      const d = Math.hypot(x + 0.5 - w / 2, y + 0.5 - w / 2);
      const a = Math.max(0, Math.min(1, w / 2 - 2 - d));
      const inner = d < w / 4;
      data.set(inner ? [29, 43, 58, Math.round(a * 255)] : [242, 130, 0, Math.round(a * 255)], (y * w + x) * 4);
    }
  return { width: w, height: w, data };
}

export function photoPixels() {
  const w = 400;
  const h = 300;
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      data.set([Math.round((x / w) * 200 + 30), Math.round((y / h) * 160 + 60), 180, 255], (y * w + x) * 4);
    }
  return { width: w, height: h, data };
}
