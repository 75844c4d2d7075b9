// Writes the demo products' PSDs (issue 24 §1) with ag-psd into scripts/seed/demo-templates/
// (seeded as templates/demo/<name> and as the platform's demo designs and mockups) and copies
// the business card to examples/business-card.psd for the README's tour:
//   demo-business-card.psd  85 × 55 mm + 3 mm bleed at 300 ppi (1075 × 720 px); name, title,
//                           phone and e-mail as Lato text layers with copyfitting markers, a
//                           vector logo, a round photo frame (a photo clipped to a circle)
//   demo-flyer-a5.psd       A5 + 3 mm bleed at 300 ppi (1819 × 2551 px); headline, sub-line,
//                           a paragraph box, footer, a large photo
//   demo-mockup-desk.psd    the card on a desk: a perspective smart object "Card"
//   demo-mockup-mug.psd     the card on a mug: a smart object "Print area" under a cylinder shading
//   demo-mockup-flyer.psd   the flyer on a table: a perspective smart object "Flyer"
// Every picture is drawn here (flat colours and gradients, no third-party images); the fonts are
// the Lato subsets of assets/fonts (scripts/demo-products/fonts.sh, SIL OFL). Text pixels are
// rendered by resvg as the engine re-renders a text layer, so typing the same text changes
// nothing. Usage: node scripts/demo-products/make.mjs
import { copyFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { writePsdBuffer } from 'ag-psd';
import { blank, circle, circlePath, composite, landscape, layer, mix, paint, polygon, shapeLayer, textLayer } from './draw.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const out = path.join(root, 'scripts/seed/demo-templates');

const TEAL = [31, 78, 95];
const CORAL = [226, 106, 76];
const INK = [34, 40, 49];
const GREY = [88, 98, 110];
const WHITE = [255, 255, 255];
const CREAM = [250, 247, 240];

/** px at `ppi` of `mm` millimetres. */
const mm = (v, ppi) => Math.round((v / 25.4) * ppi);

function write(name, width, height, ppi, layers, extra = {}) {
  const imageData = composite(width, height, layers);
  const psd = {
    width, height, imageData,
    imageResources: { resolutionInfo: { horizontalResolution: ppi, horizontalResolutionUnit: 'PPI', widthUnit: 'Inches', verticalResolution: ppi, verticalResolutionUnit: 'PPI', heightUnit: 'Inches' } },
    children: layers.map(({ hidden, ...l }) => ({ ...l, ...(hidden ? { hidden } : {}) })),
    ...extra,
  };
  const bytes = writePsdBuffer(psd, { generateThumbnail: false });
  writeFileSync(path.join(out, name), bytes);
  console.log(`wrote scripts/seed/demo-templates/${name} (${width} × ${height} px, ${(bytes.length / 1024).toFixed(0)} KB)`);
  return imageData;
}

/** The logo: a coral disc as a vector shape layer (its pixels drawn from the same circle). */
function logo(canvas, cx, cy, r) {
  return shapeLayer('Logo', canvas, circle(cx, cy, r), CORAL, [cx - r - 1, cy - r - 1, cx + r + 1, cy + r + 1], {
    vectorFill: { type: 'color', color: { r: CORAL[0], g: CORAL[1], b: CORAL[2] } },
    vectorMask: { paths: [circlePath(cx, cy, r)] },
  });
}

/** The logo's wordmark: set in Lato, kept as pixels (a logo, not a field the shopper fills). */
const wordmark = ({ text, ...pixels }) => pixels;

// --- Business card --------------------------------------------------------------------------
function businessCard() {
  const ppi = 300;
  const canvas = { width: mm(91, ppi), height: mm(61, ppi) }; // 85 × 55 mm + 3 mm bleed each side
  const { width: W, height: H } = canvas;
  const photo = landscape(300, 300);
  const cx = 205, cy = H / 2;
  const layers = [
    layer('Background', 0, 0, paint(W, H, () => [...WHITE, 255])),
    layer('Panel', 0, 0, paint(395, H, () => [...TEAL, 255])),
    shapeLayer('Photo ring', canvas, circle(cx, cy, 150), WHITE, [cx - 152, cy - 152, cx + 152, cy + 152]),
    shapeLayer('Photo frame', canvas, circle(cx, cy, 140), [200, 210, 214], [cx - 142, cy - 142, cx + 142, cy + 142]),
    layer('Photo', cx - 150, cy - 150, photo, { clipping: true }),
    logo(canvas, 472, 104, 22),
    wordmark(textLayer('Logo wordmark', { text: 'NORTHWIND PRINT', x: 510, y: 114, font: 'Lato-Bold.ttf', size: 27, color: TEAL, tracking: 150, canvas })),
    textLayer('Name <TOS_fitToBox> <MW_550> <FMIN_29> <REQ>', { text: 'Alex Morgan', x: 450, y: 300, font: 'Lato-Bold.ttf', size: 64, color: INK, canvas }),
    textLayer('Title <TOS_fitToWidth> <MW_550>', { text: 'Creative Director', x: 450, y: 352, font: 'Lato-Light.ttf', size: 36, color: CORAL, canvas }),
    layer('Rule', 452, 392, paint(90, 4, () => [...CORAL, 255])),
    textLayer('Phone <TOS_fitToWidth> <MW_550>', { text: '+44 20 7946 0958', x: 450, y: 485, font: 'Lato-Regular.ttf', size: 31, color: GREY, canvas }),
    textLayer('E-mail <TOS_fitToWidth> <MW_550>', { text: 'alex.morgan@northwind.example', x: 450, y: 535, font: 'Lato-Regular.ttf', size: 31, color: GREY, canvas }),
  ];
  return write('demo-business-card.psd', W, H, ppi, layers);
}

// --- A5 flyer --------------------------------------------------------------------------------
function flyer() {
  const ppi = 300;
  const canvas = { width: mm(154, ppi), height: mm(216, ppi) }; // 148 × 210 mm + 3 mm bleed
  const { width: W, height: H } = canvas;
  const body = [
    'Come and see how your ideas become print: business cards,',
    'flyers and posters made while you watch, paper samples to',
    'touch, and our designers at hand for your own project.',
    'Free coffee all day, and 20 % off every order placed',
    'on the day. Bring a friend, and your best ideas.',
  ].join('\n');
  const layers = [
    layer('Background', 0, 0, paint(W, H, () => [...CREAM, 255])),
    layer('Photo', 0, 0, landscape(W, 1450)),
    logo(canvas, 175, 175, 40),
    wordmark(textLayer('Logo wordmark', { text: 'NORTHWIND PRINT', x: 240, y: 193, font: 'Lato-Bold.ttf', size: 50, color: WHITE, tracking: 150, canvas })),
    textLayer('Headline <TOS_fitToWidth> <MW_1560> <REQ>', { text: 'Summer Open Day', x: 130, y: 1665, font: 'Lato-Bold.ttf', size: 150, color: TEAL, canvas }),
    textLayer('Date <TOS_fitToWidth> <MW_1560>', { text: 'Saturday 14 June, 10 am to 4 pm', x: 132, y: 1770, font: 'Lato-Light.ttf', size: 72, color: CORAL, canvas }),
    textLayer('Body <TOS_fitToBox> <FMIN_33>', { text: body, x: 132, y: 1840, box: { width: 1560, height: 440 }, font: 'Lato-Regular.ttf', size: 50, leading: 1.4, color: GREY, canvas }),
    layer('Footer band', 0, 2330, paint(W, H - 2330, () => [...TEAL, 255])),
    textLayer('Footer <TOS_fitToWidth> <MW_1560>', { text: 'northwind.example  ·  +44 20 7946 0958', x: 132, y: 2455, font: 'Lato-Bold.ttf', size: 46, color: WHITE, canvas }),
  ];
  return write('demo-flyer-a5.psd', W, H, ppi, layers);
}

// --- Mockups ---------------------------------------------------------------------------------
/** `src` drawn into the quad `to` (clockwise from top-left) with bilinear sampling, as a layer. */
function warpInto(name, canvas, src, to, extra) {
  const h = homography([0, 0, src.width, 0, src.width, src.height, 0, src.height], to);
  const inv = invert(h);
  const xs = to.filter((_, i) => i % 2 === 0), ys = to.filter((_, i) => i % 2 === 1);
  const l = Math.floor(Math.min(...xs)), t = Math.floor(Math.min(...ys)), r = Math.ceil(Math.max(...xs)), b = Math.ceil(Math.max(...ys));
  const img = blank(r - l, b - t);
  const inside = polygon(to);
  for (let y = t; y < b; y++) for (let x = l; x < r; x++) {
    let n = 0;
    for (let s = 0; s < 16; s++) if (inside(x + ((s % 4) + 0.5) / 4, y + (Math.floor(s / 4) + 0.5) / 4)) n++;
    if (!n) continue;
    const [u, v] = apply(inv, x + 0.5, y + 0.5);
    const c = sample(src, u - 0.5, v - 0.5);
    img.data.set([c[0], c[1], c[2], (n / 16) * 255], ((y - t) * img.width + (x - l)) * 4);
  }
  return layer(name, l, t, img, extra);
}
function sample(img, x, y) {
  const cx = (v, m) => Math.min(m - 1, Math.max(0, v));
  const x0 = Math.floor(x), y0 = Math.floor(y), fx = x - x0, fy = y - y0;
  const px = (X, Y) => { const i = (cx(Y, img.height) * img.width + cx(X, img.width)) * 4; return [img.data[i], img.data[i + 1], img.data[i + 2]]; };
  return mix(mix(px(x0, y0), px(x0 + 1, y0), fx), mix(px(x0, y0 + 1), px(x0 + 1, y0 + 1), fx), fy);
}
function homography(from, to) {
  const a = [];
  for (let i = 0; i < 4; i++) {
    const [x, y, u, v] = [from[2 * i], from[2 * i + 1], to[2 * i], to[2 * i + 1]];
    a.push([x, y, 1, 0, 0, 0, -u * x, -u * y, u], [0, 0, 0, x, y, 1, -v * x, -v * y, v]);
  }
  for (let c = 0; c < 8; c++) {
    let p = c;
    for (let r = c + 1; r < 8; r++) if (Math.abs(a[r][c]) > Math.abs(a[p][c])) p = r;
    [a[c], a[p]] = [a[p], a[c]];
    for (let r = 0; r < 8; r++) if (r !== c) { const f = a[r][c] / a[c][c]; for (let k = c; k < 9; k++) a[r][k] -= f * a[c][k]; }
  }
  return [...a.map((row, i) => row[8] / row[i]), 1];
}
function invert(m) {
  const [a, b, c, d, e, f, g, h, i] = m;
  const A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
  const det = a * A + b * B + c * C;
  return [A, -(b * i - c * h), b * f - c * e, B, a * i - c * g, -(a * f - c * d), C, -(a * h - b * g), a * e - b * d].map((v) => v / det);
}
const apply = (m, x, y) => { const w = m[6] * x + m[7] * y + m[8]; return [(m[0] * x + m[1] * y + m[2]) / w, (m[3] * x + m[4] * y + m[5]) / w]; };

/** A 300 ppi product's trim (inside its 3 mm bleed) cut out of its merged image: what a smart object shows. */
function trim(img) {
  const bleed = mm(3, 300);
  const out = blank(img.width - 2 * bleed, img.height - 2 * bleed);
  for (let y = 0; y < out.height; y++) out.data.set(img.data.subarray(((y + bleed) * img.width + bleed) * 4, ((y + bleed) * img.width + img.width - bleed) * 4), y * out.width * 4);
  return out;
}

/** A smart object layer showing `art` in the quad `corners` (its content is `art`'s size). */
function smartObject(name, canvas, art, corners, id) {
  return warpInto(name, canvas, art, corners, { placedLayer: { id, placed: id, type: 'raster', transform: corners, width: art.width, height: art.height } });
}

function deskMockup(card) {
  const canvas = { width: 1600, height: 1100 };
  const { width: W, height: H } = canvas;
  const wood = [196, 154, 108];
  const desk = paint(W, H, (x, y) => {
    const seam = y % 220 < 4;
    const grain = 0.06 * Math.sin(y / 7) + 0.04 * Math.sin(y / 23 + 1) + 0.03 * Math.sin(y / 3.1);
    return [...(seam ? mix(wood, [90, 60, 40], 0.5) : wood.map((v) => v * (1 + grain))), 255];
  });
  const cardQuad = [560, 360, 1190, 430, 1135, 835, 495, 760];
  const art = trim(card);
  const layers = [
    layer('Desk', 0, 0, desk),
    shapeLayer('Notebook shadow', canvas, polygon([95, 175, 455, 120, 540, 640, 180, 700]), [60, 40, 30], [90, 115, 545, 705], { opacity: 0.35, blendMode: 'multiply' }),
    shapeLayer('Notebook', canvas, polygon([80, 160, 440, 105, 525, 625, 165, 685]), [44, 62, 80], [75, 100, 530, 690]),
    shapeLayer('Notebook band', canvas, polygon([380, 114, 402, 111, 487, 631, 465, 634]), CORAL, [375, 105, 490, 640]),
    shapeLayer('Pencil', canvas, polygon([600, 930, 1040, 880, 1044, 900, 604, 950]), [240, 190, 60], [595, 875, 1050, 955]),
    shapeLayer('Pencil tip', canvas, polygon([1040, 880, 1090, 887, 1044, 900]), [70, 60, 50], [1035, 875, 1095, 905]),
    shapeLayer('Saucer shadow', canvas, circle(1345, 215, 165), [60, 40, 30], [1175, 45, 1515, 385], { opacity: 0.3, blendMode: 'multiply' }),
    shapeLayer('Saucer', canvas, circle(1330, 200, 160), [244, 242, 238], [1165, 35, 1495, 365]),
    shapeLayer('Cup', canvas, circle(1330, 200, 105), WHITE, [1220, 90, 1440, 310]),
    shapeLayer('Coffee', canvas, circle(1330, 200, 86), [96, 60, 38], [1240, 110, 1420, 290]),
    shapeLayer('Card shadow', canvas, polygon(cardQuad.map((v, i) => v + (i % 2 ? 18 : 12))), [60, 40, 30], [490, 355, 1210, 860], { opacity: 0.35, blendMode: 'multiply' }),
    smartObject('Card', canvas, art, cardQuad, '5d1e0c2a-9c4b-4f1e-8a31-0000000000c1'),
  ];
  write('demo-mockup-desk.psd', W, H, 72, layers);
}

function mugMockup(card) {
  const canvas = { width: 1200, height: 1000 };
  const { width: W, height: H } = canvas;
  const L = 380, R = 820, TOP = 300, BOTTOM = 820;
  /** Light across the cylinder: 1 in front, darker toward its edges. */
  const shade = (x) => { const u = Math.min(1, Math.max(-1, ((x - (L + R) / 2) / ((R - L) / 2) + 0.2) / 1.2)); return 0.7 + 0.3 * Math.sqrt(1 - u * u); };
  const body = (x, y) => x >= L && x < R && y >= TOP && (y < BOTTOM || ((x - 600) / 220) ** 2 + ((y - BOTTOM) / 40) ** 2 <= 1);
  const printQuad = [452, 420, 748, 420, 740, 612, 460, 612];
  const art = trim(card);
  const layers = [
    layer('Backdrop', 0, 0, paint(W, H, (x, y) => [...(y < 760 ? mix([238, 235, 229], [214, 209, 201], y / 760) : [196, 189, 180]), 255])),
    shapeLayer('Mug shadow', canvas, (x, y) => ((x - 640) / 300) ** 2 + ((y - 860) / 45) ** 2 <= 1, [70, 60, 50], [330, 810, 950, 910], { opacity: 0.35, blendMode: 'multiply' }),
    shapeLayer('Handle', canvas, (x, y) => { const d = (x - 820) ** 2 + ((y - 540) * 1.1) ** 2; return x > 800 && d <= 130 ** 2 && d >= 82 ** 2; }, [232, 230, 226], [795, 390, 955, 690]),
    shapeLayer('Mug', canvas, body, (x) => [250, 249, 247].map((v) => v * shade(x)), [L, TOP, R, BOTTOM + 41]),
    shapeLayer('Rim', canvas, (x, y) => ((x - 600) / 220) ** 2 + ((y - TOP) / 40) ** 2 <= 1, [246, 245, 242], [L, TOP - 41, R, TOP + 41]),
    shapeLayer('Inside', canvas, (x, y) => ((x - 600) / 204) ** 2 + ((y - TOP) / 32) ** 2 <= 1, [120, 84, 60], [L + 10, TOP - 33, R - 10, TOP + 33]),
    smartObject('Print area', canvas, art, printQuad, '5d1e0c2a-9c4b-4f1e-8a31-0000000000c2'),
    shapeLayer('Shading', canvas, polygon(printQuad), (x) => [255, 255, 255].map((v) => v * shade(x)), [450, 418, 750, 614], { blendMode: 'multiply' }),
  ];
  write('demo-mockup-mug.psd', W, H, 72, layers);
}

/** The flyer on a table beside a plant and a pen: a perspective smart object "Flyer" (A5 trim). */
function flyerMockup(flyerImage) {
  const canvas = { width: 1400, height: 1100 };
  const { width: W, height: H } = canvas;
  const table = [222, 226, 228];
  const flyerQuad = [470, 150, 1000, 190, 960, 930, 420, 895];
  const art = trim(flyerImage);
  // The smart object's content at a third of the print pixels (1749 × 2480 → 583 × 827), about the
  // size it shows at: the mockup renders the design at the content's size.
  const small = { width: Math.round(art.width / 3), height: Math.round(art.height / 3), data: null };
  small.data = new Uint8ClampedArray(small.width * small.height * 4);
  for (let y = 0; y < small.height; y++) for (let x = 0; x < small.width; x++) small.data.set(art.data.subarray(((y * 3) * art.width + x * 3) * 4, ((y * 3) * art.width + x * 3) * 4 + 4), (y * small.width + x) * 4);
  const layers = [
    layer('Table', 0, 0, paint(W, H, (x, y) => [...table.map((v) => v - Math.round(y / 40)), 255])),
    shapeLayer('Pot shadow', canvas, circle(1195, 250, 150), [60, 60, 70], [1040, 95, 1350, 405], { opacity: 0.25, blendMode: 'multiply' }),
    shapeLayer('Pot', canvas, circle(1180, 235, 140), [226, 106, 76], [1035, 90, 1325, 380]),
    shapeLayer('Leaves', canvas, (x, y) => [[1120, 190, 70], [1230, 200, 65], [1170, 290, 72], [1250, 290, 55], [1110, 280, 50]].some(([cx, cy, r]) => (x - cx) ** 2 + (y - cy) ** 2 <= r * r), [72, 128, 96], [1035, 115, 1310, 365]),
    shapeLayer('Pen', canvas, polygon([150, 900, 520, 1010, 514, 1028, 144, 918]), [31, 78, 95], [140, 895, 525, 1035]),
    shapeLayer('Flyer shadow', canvas, polygon(flyerQuad.map((v, i) => v + (i % 2 ? 20 : 14))), [60, 60, 70], [410, 145, 1020, 955], { opacity: 0.3, blendMode: 'multiply' }),
    smartObject('Flyer', canvas, small, flyerQuad, '5d1e0c2a-9c4b-4f1e-8a31-0000000000c3'),
  ];
  write('demo-mockup-flyer.psd', W, H, 72, layers);
}

const card = businessCard();
const flyerImage = flyer();
deskMockup(card);
mugMockup(card);
flyerMockup(flyerImage);
copyFileSync(path.join(out, 'demo-business-card.psd'), path.join(root, 'examples/business-card.psd'));
console.log('copied to examples/business-card.psd');
