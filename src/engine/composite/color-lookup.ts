import type { AdjustmentLayer } from 'ag-psd';

type ColorLookup = Extract<AdjustmentLayer, { type: 'color lookup' }>;

/**
 * A 3D (or 1D) LUT as the compiled tree keeps it: the file is parsed once, at upload, so a render
 * neither carries nor re-reads the text. `shaper[c]` maps channel c's input (0..1) to its place
 * along the table (0..1), piecewise linear through the points [inputs, places]: a .cube's domain,
 * a .csp's pre-LUT, the identity for a .3dl. `nodes` holds size³ (1D: size) RGB outputs, red
 * index fastest, each 0..65535 for 0..1, little-endian, base64.
 */
export interface CompiledLut {
  dims: 1 | 3;
  size: number;
  shaper: Array<[number[], number[]]>;
  nodes: string;
}

/**
 * The colour lookup as the compiled tree keeps it: ag-psd's settings without the file's and the
 * profile's bytes, with the parsed table (`lut`), or `unreadable` naming what the compositor
 * cannot draw (the upload refuses it), or neither when the layer holds no lookup (it changes
 * nothing, as in Photoshop with no table chosen).
 */
export type CompiledColorLookup = Omit<ColorLookup, 'profile' | 'lut3DFileData'> & {
  type: 'color lookup';
  lut?: CompiledLut;
  unreadable?: string;
};

/** The upload's form of a colour lookup: its file parsed, its bytes dropped (see CompiledColorLookup). */
export function compileColorLookup(adj: ColorLookup): CompiledColorLookup {
  const { profile, lut3DFileData, ...settings } = adj;
  const out: CompiledColorLookup = { ...settings, type: 'color lookup' };
  const kind = adj.lookupType ?? (lut3DFileData?.length ? '3dlut' : undefined);
  if (kind === 'abstractProfile') out.unreadable = 'abstract profile';
  else if (kind === 'deviceLinkProfile') out.unreadable = 'device link profile';
  else if (kind === '3dlut') {
    if (!lut3DFileData?.length) {
      // A table chosen but its file not kept: only the profile Photoshop derived from it is left.
      if (profile?.length) out.unreadable = '3D LUT without its file';
    } else {
      const text = new TextDecoder().decode(lut3DFileData);
      const parsed = parseLut(text, adj.lutFormat, adj.tableOrder, adj.dataOrder);
      if (typeof parsed === 'string') out.unreadable = parsed;
      else out.lut = encodeLut(parsed);
    }
  }
  // A table is named but neither file nor profile came through: ag-psd stops reading the record at
  // a value it does not know (a LUT format of a later Photoshop), keeping what it read before.
  const named = adj.lut3DFileName || adj.name;
  if (!out.lut && !out.unreadable && named) out.unreadable = `"${named}", not readable`;
  return out;
}

/** The reason an upload refuses this colour lookup ("colour lookup (<kind>)"), if it must. */
export function colorLookupRefusal(adj: AdjustmentLayer): string | undefined {
  if (adj.type !== 'color lookup') return undefined;
  const c = adj as CompiledColorLookup;
  if (c.unreadable) return `colour lookup (${c.unreadable})`;
  // Not compiled (a tree built without compileColorLookup): anything to apply is unknown to us.
  if (!c.lut && ((adj.lut3DFileData?.length ?? 0) > 0 || (adj.profile?.length ?? 0) > 0)) return 'colour lookup (not parsed)';
  return undefined;
}

/** A parsed LUT, outputs as floats (0..1 nominal), red index fastest. */
export interface Lut {
  dims: 1 | 3;
  size: number;
  shaper: Array<[number[], number[]]>;
  nodes: Float32Array;
}

const MAX_3D = 65;
const MAX_1D = 65536;
const IDENTITY: [number[], number[]] = [[0, 1], [0, 1]];

/**
 * Parses a LUT file's text: .cube (Adobe/Resolve), .3dl (Lustre/Flame), .csp (Rising Sun). The
 * format is recognised from the text first (a .csp starts CSPLUTV100, a .cube has LUT_3D_SIZE or
 * LUT_1D_SIZE), then from Photoshop's LUTFormat. Photoshop's table order names the channel that
 * varies slowest first, so 'rgb' is blue fastest (a .3dl's own order) and 'bgr' red fastest (a
 * .cube's and a .csp's); its data order 'bgr' reads each line's three values as B, G, R. Either
 * defaults to the file's own. Returns the reason as a string when it cannot be read.
 */
export function parseLut(text: string, format?: string, tableOrder?: 'rgb' | 'bgr', dataOrder?: 'rgb' | 'bgr'): Lut | string {
  const head = text.trimStart();
  if (/^CSPLUTV100\b/.test(head)) return finish(parseCsp(head), tableOrder ?? 'bgr', dataOrder);
  if (/^\s*LUT_(3D|1D)_SIZE\b/m.test(text) || format === 'cube') return finish(parseCube(text), tableOrder ?? 'bgr', dataOrder, 'CUBE');
  if (format === 'look') return 'LOOK file';
  return finish(parse3dl(text), tableOrder ?? 'rgb', dataOrder, '3DL');
}

type Raw = { dims: 1 | 3; size: number; shaper: Array<[number[], number[]]>; values: number[] };

function finish(raw: Raw | string, tableOrder: 'rgb' | 'bgr', dataOrder: 'rgb' | 'bgr' | undefined, name = 'CSP'): Lut | string {
  if (typeof raw === 'string') return `${name} file ${raw}`;
  const { dims, size, values } = raw;
  const count = dims === 3 ? size * size * size : size;
  if (values.length !== count * 3) return `${name} file with ${values.length / 3} entries for a size of ${size}`;
  if (!values.every(Number.isFinite)) return `${name} file with a value that is not a number`;
  const nodes = new Float32Array(count * 3);
  const swap = dataOrder === 'bgr';
  for (let j = 0; j < count; j++) {
    let to = j;
    if (dims === 3 && tableOrder === 'rgb') {
      // File index j = (r·N + g)·N + b (blue fastest) → ours (b·N + g)·N + r.
      const b = j % size, g = Math.floor(j / size) % size, r = Math.floor(j / (size * size));
      to = (b * size + g) * size + r;
    }
    for (let c = 0; c < 3; c++) nodes[to * 3 + c] = values[j * 3 + (swap ? 2 - c : c)];
  }
  return { dims, size, shaper: raw.shaper, nodes };
}

/** Non-empty lines without comments, split into tokens. */
function lines(text: string): string[][] {
  const out: string[][] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    const t = line.replace(/#.*/, '').trim();
    if (t) out.push(t.split(/\s+/));
  }
  return out;
}

const isNumber = (s: string) => /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s);

function parseCube(text: string): Raw | string {
  let size3 = 0, size1 = 0;
  let min = [0, 0, 0], max = [1, 1, 1];
  const values: number[] = [];
  for (const t of lines(text)) {
    if (isNumber(t[0])) {
      if (t.length !== 3 || !t.every(isNumber)) return 'with a data line that is not three numbers';
      values.push(+t[0], +t[1], +t[2]);
      continue;
    }
    const nums = t.slice(1).map(Number);
    switch (t[0]) {
      case 'LUT_3D_SIZE': size3 = nums[0]; break;
      case 'LUT_1D_SIZE': size1 = nums[0]; break;
      case 'DOMAIN_MIN': min = nums.slice(0, 3); break;
      case 'DOMAIN_MAX': max = nums.slice(0, 3); break;
      case 'LUT_3D_INPUT_RANGE':
      case 'LUT_1D_INPUT_RANGE':
        min = [nums[0], nums[0], nums[0]];
        max = [nums[1], nums[1], nums[1]];
        break;
      default: break; // TITLE and other keywords change nothing
    }
  }
  if (size3 && size1) return 'with both a 1D and a 3D table';
  const dims = size3 ? 3 : 1;
  const size = size3 || size1;
  if (!Number.isInteger(size) || size < 2 || size > (dims === 3 ? MAX_3D : MAX_1D)) return `with a table size of ${size}`;
  if (min.length !== 3 || max.length !== 3 || [0, 1, 2].some((c) => !(max[c] > min[c]))) return 'with an empty domain';
  return { dims, size, shaper: [0, 1, 2].map((c) => [[min[c], max[c]], [0, 1]]), values };
}

/**
 * .3dl: an optional "Mesh <input bits> <output bits>" line, a line of more than three integers
 * (the input code values of the grid's nodes), then N³ lines of three integers, blue fastest.
 * The output depth is the Mesh line's, or guessed from the largest value as OpenColorIO does
 * (8, 10, 12 or 16 bits, a value up to twice the depth's maximum still counting as that depth).
 */
function parse3dl(text: string): Raw | string {
  let mesh: number[] | undefined;
  let outBits = 0;
  const values: number[] = [];
  for (const t of lines(text)) {
    if (/^mesh$/i.test(t[0]) && t.length === 3) {
      outBits = +t[2];
      continue;
    }
    if (!t.every((s) => /^[+-]?\d+$/.test(s))) continue; // 3DMESH, LUT8, gamma 1.0 and the like
    const nums = t.map(Number);
    if (nums.length > 3) {
      if (mesh) return 'with two input lines';
      mesh = nums;
    } else if (nums.length === 3) values.push(...nums);
    else return 'with a line of fewer than three values';
  }
  if (!values.length) return 'without a table';
  const size = Math.round(Math.cbrt(values.length / 3));
  if (size < 2 || size > MAX_3D || size ** 3 * 3 !== values.length) return `with ${values.length / 3} entries (not a cube)`;
  const outMax = outBits >= 8 && outBits <= 16 ? 2 ** outBits - 1 : likelyMax(values.reduce((m, v) => (v > m ? v : m), 0));
  if (mesh) {
    if (mesh.length !== size) return `with ${mesh.length} input values for a size of ${size}`;
    const inMax = likelyMax(Math.max(...mesh));
    // Evenly spaced input values are the identity; others would move the grid's nodes.
    if (mesh.some((v, i) => Math.abs(v - (i * inMax) / (size - 1)) >= 2)) return 'with uneven input values';
  }
  return { dims: 3, size, shaper: [IDENTITY, IDENTITY, IDENTITY], values: values.map((v) => v / outMax) };
}

/** The full scale of integer codes whose largest is v (a loop, not Math.max(...): 65³ lines would overflow the call). */
function likelyMax(v: number): number {
  for (const bits of [8, 10, 12]) if (v <= 2 ** (bits + 1) - 1) return 2 ** bits - 1;
  return 65535;
}

/**
 * .csp: "CSPLUTV100", "3D", an optional metadata block, then per channel a pre-LUT (its point
 * count, its inputs, its outputs), the cube's three sizes and N³ lines, red fastest.
 */
function parseCsp(text: string): Raw | string {
  const t = lines(text);
  if (t[1]?.[0] !== '3D') return 'that is not a 3D LUT';
  let i = 2;
  if (t[i]?.[0] === 'BEGIN' && t[i][1] === 'METADATA') {
    while (i < t.length && !(t[i][0] === 'END' && t[i][1] === 'METADATA')) i++;
    i++;
  }
  const shaper: Array<[number[], number[]]> = [];
  for (let c = 0; c < 3; c++) {
    const n = Number(t[i]?.[0]);
    const ins = t[i + 1]?.map(Number) ?? [];
    const outs = t[i + 2]?.map(Number) ?? [];
    if (!(n >= 2) || ins.length !== n || outs.length !== n || ![...ins, ...outs].every(Number.isFinite)) return 'with an unreadable pre-LUT';
    if (ins.some((v, k) => k > 0 && !(v > ins[k - 1]))) return 'with a pre-LUT whose inputs do not increase';
    shaper.push([ins, outs]);
    i += 3;
  }
  const dims = t[i]?.map(Number) ?? [];
  const size = dims[0];
  if (dims.length !== 3 || dims[1] !== size || dims[2] !== size) return 'with a cube that is not N×N×N';
  if (!Number.isInteger(size) || size < 2 || size > MAX_3D) return `with a table size of ${size}`;
  const values: number[] = [];
  for (const line of t.slice(i + 1)) {
    if (line.length !== 3) return 'with a data line that is not three numbers';
    values.push(...line.map(Number));
  }
  return { dims: 3, size, shaper, values };
}

/** The compiled (JSON) form of a parsed LUT: outputs clamped to 0..1 as 16-bit integers. */
export function encodeLut(lut: Lut): CompiledLut {
  const bytes = new Uint8Array(lut.nodes.length * 2);
  const view = new DataView(bytes.buffer);
  lut.nodes.forEach((v, i) => view.setUint16(i * 2, Math.round(Math.max(0, Math.min(1, v)) * 65535), true));
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return { dims: lut.dims, size: lut.size, shaper: lut.shaper, nodes: btoa(bin) };
}

/** What a render needs, prepared once per compiled adjustment (the tree is cached per isolate). */
interface Prepared {
  size: number;
  /** Per channel and input value: the lower node's index and the weight of the upper one. */
  index: Int32Array[];
  frac: Float32Array[];
  /** Outputs in channel units (0..255), red index fastest. */
  nodes: Float32Array;
  /** 1D tables resolve to one 256-entry curve per channel. */
  curves?: Uint8Array[];
}

const prepared = new WeakMap<object, Prepared>();

function prepare(lut: CompiledLut): Prepared {
  const bin = atob(lut.nodes);
  const view = new DataView(new ArrayBuffer(bin.length));
  for (let i = 0; i < bin.length; i++) view.setUint8(i, bin.charCodeAt(i));
  const nodes = new Float32Array(bin.length / 2);
  for (let i = 0; i < nodes.length; i++) nodes[i] = (view.getUint16(i * 2, true) * 255) / 65535;
  const n = lut.size;
  const index: Int32Array[] = [];
  const frac: Float32Array[] = [];
  for (let c = 0; c < 3; c++) {
    const [ins, outs] = lut.shaper[c];
    const idx = new Int32Array(256);
    const fr = new Float32Array(256);
    for (let v = 0; v < 256; v++) {
      const p = Math.max(0, Math.min(1, piecewise(ins, outs, v / 255))) * (n - 1);
      const i0 = Math.min(n - 2, Math.floor(p));
      idx[v] = i0;
      fr[v] = p - i0;
    }
    index.push(idx);
    frac.push(fr);
  }
  const out: Prepared = { size: n, index, frac, nodes };
  if (lut.dims === 1) {
    out.curves = [0, 1, 2].map((c) => {
      const curve = new Uint8Array(256);
      for (let v = 0; v < 256; v++) {
        const i0 = index[c][v], f = frac[c][v];
        const y = nodes[i0 * 3 + c] * (1 - f) + nodes[(i0 + 1) * 3 + c] * f;
        curve[v] = Math.max(0, Math.min(255, Math.round(y)));
      }
      return curve;
    });
  }
  return out;
}

/** y at x along the points (xs, ys) (xs increasing), flat beyond the ends. */
function piecewise(xs: number[], ys: number[], x: number): number {
  const last = xs.length - 1;
  if (x <= xs[0]) return ys[0];
  if (x >= xs[last]) return ys[last];
  let k = 0;
  while (x > xs[k + 1]) k++;
  return ys[k] + ((ys[k + 1] - ys[k]) * (x - xs[k])) / (xs[k + 1] - xs[k]);
}

/**
 * Colour Lookup (docs/fidelity.md, "Colour Lookup"): each pixel's 8-bit RGB, through the table's
 * shaper, interpolated trilinearly between the eight surrounding nodes. Photoshop's dither (noise
 * of under one level against banding) is left out. False when there is no table to apply (the
 * upload refuses what could not be read; without a table the layer changes nothing).
 */
export function applyColorLookup(adj: ColorLookup, d: Uint8ClampedArray): boolean {
  const lut = (adj as CompiledColorLookup).lut;
  if (!lut) return false;
  let p = prepared.get(adj);
  if (!p) {
    p = prepare(lut);
    prepared.set(adj, p);
  }
  if (p.curves) {
    const [cr, cg, cb] = p.curves;
    for (let i = 0; i < d.length; i += 4) {
      d[i] = cr[d[i]];
      d[i + 1] = cg[d[i + 1]];
      d[i + 2] = cb[d[i + 2]];
    }
    return true;
  }
  const { size: n, nodes } = p;
  const [fr, fg, fb] = p.frac;
  const sg = n * 3, sb = n * n * 3; // strides of one step in g and b (r steps by 3)
  // Each channel's value → its share of the lower corner's offset into the nodes.
  const or = p.index[0].map((k) => k * 3), og0 = p.index[1].map((k) => k * sg), ob0 = p.index[2].map((k) => k * sb);
  for (let i = 0; i < d.length; i += 4) {
    const r = d[i], g = d[i + 1], b = d[i + 2];
    const x = fr[r], y = fg[g], z = fb[b];
    // The cell's corners: o (r, g, b), then + r, + g, + b steps; the three channels unrolled.
    const o = ob0[b] + og0[g] + or[r];
    const og = o + sg, ob = o + sb, ogb = og + sb;
    let a0 = nodes[o], a1 = nodes[og], a2 = nodes[ob], a3 = nodes[ogb];
    let c0 = a0 + (nodes[o + 3] - a0) * x, c1 = a1 + (nodes[og + 3] - a1) * x;
    let c2 = a2 + (nodes[ob + 3] - a2) * x, c3 = a3 + (nodes[ogb + 3] - a3) * x;
    c0 += (c1 - c0) * y;
    c2 += (c3 - c2) * y;
    d[i] = c0 + (c2 - c0) * z;
    a0 = nodes[o + 1]; a1 = nodes[og + 1]; a2 = nodes[ob + 1]; a3 = nodes[ogb + 1];
    c0 = a0 + (nodes[o + 4] - a0) * x; c1 = a1 + (nodes[og + 4] - a1) * x;
    c2 = a2 + (nodes[ob + 4] - a2) * x; c3 = a3 + (nodes[ogb + 4] - a3) * x;
    c0 += (c1 - c0) * y;
    c2 += (c3 - c2) * y;
    d[i + 1] = c0 + (c2 - c0) * z;
    a0 = nodes[o + 2]; a1 = nodes[og + 2]; a2 = nodes[ob + 2]; a3 = nodes[ogb + 2];
    c0 = a0 + (nodes[o + 5] - a0) * x; c1 = a1 + (nodes[og + 5] - a1) * x;
    c2 = a2 + (nodes[ob + 5] - a2) * x; c3 = a3 + (nodes[ogb + 5] - a3) * x;
    c0 += (c1 - c0) * y;
    c2 += (c3 - c2) * y;
    d[i + 2] = c0 + (c2 - c0) * z;
  }
  return true;
}
