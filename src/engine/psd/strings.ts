import { unprocessable } from '../errors';
import { recordBlocks, taggedBlocks } from './layer-section';

/**
 * Bounds on the strings ag-psd reads a character at a time (`text += String.fromCharCode(…)`):
 * each character of such a string holds a V8 cons string of ~32 bytes until it is flattened, so a
 * crafted 5 M-character layer name in a 10 MB file held ~160 MB while it was read (review27),
 * and a 2 M-character text ~130 MB. Checked here, on the bytes, before ag-psd reads them; a
 * template past them is refused with a 422.
 *
 * - A layer's Unicode name ('luni'): at most MAX_STRING characters, counted towards MAX_TEXT.
 *   Photoshop keeps names to 255, but other writers (GIMP, Affinity, scripts, ag-psd, psd-tools)
 *   write longer ones, and a file whose name is cut would personalise by another key.
 * - One string of a descriptor (layer effects, type layers, placed layers, fills, strokes,
 *   adjustments, layer comps): at most MAX_STRING characters. A type layer's text is one (a
 *   personalised text may have 10,000); its engine data, which holds the text again and is parsed
 *   the same way, at most MAX_ENGINE_DATA bytes.
 * - The Unicode strings of all descriptors together: at most MAX_TEXT characters (~32 MB while
 *   read; the most in the repository's templates is under 2,000).
 * Keys and class ids (4 characters, mostly) are not counted towards MAX_TEXT: each is dropped as
 * soon as it is read.
 */
export const MAX_STRING = 100_000;
export const MAX_LAYER_NAME = MAX_STRING;
export const MAX_ENGINE_DATA = 2_000_000;
export const MAX_TEXT = 1_000_000;

/** Descriptor items nested deeper than this are not walked (ag-psd, which recurses, decides). */
const MAX_DEPTH = 64;

class Tally {
  /** Unicode characters so far. */
  characters = 0;
  /**
   * Bytes the descriptor walks have stepped over so far, and the most they may (walked): a
   * descriptor runs on past its block's end (ag-psd reads it so, and only warns), so walks begun at
   * many blocks could each run to the file's end (review, session 28: 8,000 chained 48-byte blocks,
   * 384 KB, took 2.5 s; a 10 MB file would take many minutes). A file's own descriptors lie in
   * their blocks, each walked once: they step over less than the file.
   */
  walked = 0;
  walkBudget = Infinity;
  constructor(
    readonly where: () => string,
    readonly limit: number,
  ) {}
  /** `n` characters of one string (`unicode`: held in what ag-psd returns). */
  add(n: number, unicode: boolean): void {
    if (n > MAX_STRING) this.refuse(`a string of ${n.toLocaleString('en-US')} characters (at most ${MAX_STRING.toLocaleString('en-US')})`);
    if (unicode) this.characters += n;
    if (this.characters > this.limit) this.refuse(`more than ${this.limit.toLocaleString('en-US')} characters of text in all`);
  }
  engineData(bytes: number): void {
    if (bytes > MAX_ENGINE_DATA) this.refuse(`text engine data of ${bytes.toLocaleString('en-US')} bytes (at most ${MAX_ENGINE_DATA.toLocaleString('en-US')})`);
  }
  refuse(what: string): never {
    throw unprocessable(`The template's layer data holds ${what} in ${this.where()}; a template may hold no more.`, [{ path: 'layers', reason: 'text too long' }]);
  }
}

/** Where a walk stopped: the bytes are not a descriptor ag-psd can read to its end. */
class Stop extends Error {}

/**
 * Walks descriptors as ag-psd's readDescriptorStructure reads them (class structure, items),
 * adding the characters of every string to `tally` as it meets them (ag-psd builds them before it
 * can fail further on). Throws Stop where the bytes are not a descriptor. Methods, not closures
 * made per descriptor: the Worker's bundle names every closure it makes (keepNames).
 */
class Walker {
  at = 0;
  private readonly end: number;
  constructor(
    private readonly view: DataView,
    private readonly tally: Tally,
  ) {
    this.end = view.byteLength;
  }

  /** The descriptor from `at`; where it ends. */
  descriptor(at: number, depth = 0): number {
    this.at = at;
    this.walk(depth);
    return this.at;
  }

  private walk(depth: number): void {
    if (depth > MAX_DEPTH) throw new Stop();
    this.classStructure();
    const items = this.u32();
    for (let i = 0; i < items; i++) {
      const key = this.classId();
      this.value(this.sig(), depth, key);
    }
  }

  private need(n: number): void {
    if (n < 0 || this.at + n > this.end) throw new Stop();
  }
  private skip(n: number): void {
    this.need(n);
    this.at += n;
  }
  private u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.at);
    this.at += 4;
    return v;
  }
  private sig(): string {
    this.need(4);
    const { view, at } = this;
    this.at += 4;
    return String.fromCharCode(view.getUint8(at), view.getUint8(at + 1), view.getUint8(at + 2), view.getUint8(at + 3));
  }
  /** ag-psd reads until its reader runs past the file: the characters it builds are the ones there. */
  private unicode(): void {
    const n = this.u32();
    const { view, at, end } = this;
    // Photoshop ends a descriptor's strings with a NUL, which ag-psd drops: not counted.
    const nul = n > 0 && at + 2 * n <= end && view.getUint16(at + 2 * n - 2) === 0 ? 1 : 0;
    this.tally.add(Math.min(n, Math.floor((end - at) / 2)) - nul, true);
    this.skip(2 * n);
  }
  /** A negative length (read signed) never counts down to zero: ag-psd reads to the file's end. */
  private ascii(n: number): void {
    this.tally.add(n < 0 ? this.end - this.at : Math.min(n, this.end - this.at), false);
    this.skip(n);
  }
  /** A key or class id (4 characters when its length is 0); short ones returned. */
  private classId(): string {
    this.need(4);
    const n = this.view.getInt32(this.at);
    this.at += 4;
    const start = this.at;
    this.ascii(n || 4);
    let id = '';
    for (let i = start; i < this.at && this.at - start <= 16; i++) id += String.fromCharCode(this.view.getUint8(i));
    return id;
  }
  private classStructure(): void {
    this.unicode();
    this.classId();
  }

  private value(type: string, level: number, key = ''): void {
    if (level > MAX_DEPTH) throw new Stop();
    switch (type) {
      case 'obj ': {
        const count = this.u32();
        for (let i = 0; i < count; i++) {
          const kind = this.sig();
          if (kind === 'prop') (this.classStructure(), this.classId());
          else if (kind === 'Clss') this.classStructure();
          else if (kind === 'Enmr') (this.classStructure(), this.classId(), this.classId());
          else if (kind === 'rele') (this.classStructure(), this.u32());
          else if (kind === 'Idnt' || kind === 'indx') this.u32();
          else if (kind === 'name') (this.classStructure(), this.unicode());
          else throw new Stop();
        }
        return;
      }
      case 'Objc':
      case 'GlbO':
        return this.walk(level + 1);
      case 'VlLs': {
        const count = this.u32();
        for (let i = 0; i < count; i++) this.value(this.sig(), level + 1);
        return;
      }
      case 'doub':
      case 'comp':
      case 'UnFl':
        return this.skip(8);
      case 'UntF':
        return this.skip(12);
      case 'TEXT':
        return this.unicode();
      case 'enum':
        this.classId();
        this.classId();
        return;
      case 'long':
        return this.skip(4);
      case 'bool':
        return this.skip(1);
      case 'type':
      case 'GlbC':
        return this.classStructure();
      case 'alis':
        return this.ascii(this.u32());
      case 'tdta': {
        // Raw bytes; a type layer's engine data is parsed into strings (ag-psd's parseEngineData,
        // a character at a time).
        const n = this.u32();
        if (key === 'EngineData') this.tally.engineData(n);
        return this.skip(n);
      }
      case 'ObAr': {
        this.u32();
        this.unicode();
        this.classId();
        const count = this.u32();
        for (let i = 0; i < count; i++) {
          this.classId();
          this.skip(8);
          this.skip(8 * this.u32());
        }
        return;
      }
      case 'Pth ': {
        this.need(16);
        const chars = this.view.getUint32(this.at + 12, true);
        this.at += 16;
        this.tally.add(Math.min(chars, Math.floor((this.end - this.at) / 2)), true);
        return this.skip(2 * chars);
      }
      default:
        throw new Stop();
    }
  }
}

/** Walks the descriptor whose version (16) is at `at`; where it ends, or undefined. */
function versionedDescriptor(view: DataView, at: number, tally: Tally): number | undefined {
  if (at + 4 > view.byteLength || view.getUint32(at) !== 16) return undefined;
  const walker = new Walker(view, tally);
  try {
    return walker.descriptor(at + 4);
  } catch (e) {
    if (e instanceof Stop) return undefined;
    throw e;
  } finally {
    tally.walked += Math.max(0, walker.at - at);
    if (tally.walked > tally.walkBudget) tally.refuse('descriptors that run over one another, past their blocks');
  }
}

/**
 * The descriptors of a tagged block, where ag-psd's handlers read them: a type layer's text and
 * warp ('TySh'), a placed layer's warp ('PlLd'), and in the others one descriptor after at most
 * 8 bytes of version and signature (lfx2, lmfx, SoLd, SoLE, vscg, vogk, clrL, SoCo, GdFl, PtFl,
 * vstk, artb, pths, cinf, blwh, vibA, …).
 */
function blockDescriptors(view: DataView, key: string, data: number, tally: Tally): void {
  if (key === 'TySh') {
    const text = versionedDescriptor(view, data + 2 + 48 + 2, tally);
    if (text !== undefined) versionedDescriptor(view, text + 2, tally);
    return;
  }
  if (key === 'PlLd') {
    if (data + 9 > view.byteLength) return;
    const idEnd = data + 8 + 1 + view.getUint8(data + 8);
    versionedDescriptor(view, idEnd + 16 + 64 + 4, tally);
    return;
  }
  for (const offset of [0, 2, 4, 8]) if (versionedDescriptor(view, data + offset, tally) !== undefined) return;
}

/** Pixel data and embedded files: no strings ag-psd reads a character at a time. */
const NOT_DESCRIPTORS = new Set(['Anno', 'grdm', 'LMsk', 'Lr16', 'Lr32', 'Layr', 'Mt16', 'Mt32', 'Mtrn', 'Alph', 'FMsk', 'lnk2', 'lnkD', 'lnk3', 'FEid', 'FXid', 'Patt', 'Pat2', 'Pat3', 'Pat_', 'Txt2', 'luni', 'lsct', 'lsdk', 'lyid', 'iOpa', 'tsly', 'lclr', 'knko', 'infx', 'clbl', 'brst', 'lspf', 'fxrp', 'lnsr', 'shpa', 'vmsk', 'vsms', 'lrFX', 'levl', 'curv', 'hue2', 'selc', 'expA', 'post', 'thrs', 'brit', 'nvrt', 'blnc', 'phfl', 'mixr']);

/**
 * Refuses a template whose layer names or descriptor strings pass the bounds above (422), from
 * its bytes and before ag-psd reads them. Records it cannot walk are left to ag-psd. Returns the
 * characters counted (`limit`, `walkBudget`: for measuring; the walks may step over twice the
 * file and 1 MB, Tally.walked).
 */
export function boundStrings(bytes: Uint8Array, limit = MAX_TEXT, walkBudget = 2 * bytes.length + 1024 * 1024, linked: Array<{ key: string; names: number[] }> = []): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let where = 'the file';
  const tally = new Tally(() => where, limit);
  tally.walkBudget = walkBudget;
  const walk = (at: number, end: number, owner: string) => {
    for (const block of taggedBlocks(bytes, at, end)) {
      where = `${owner}'s '${block.key}' block`;
      if (block.key === 'luni' && block.data + 4 <= bytes.length) {
        const length = view.getUint32(block.data);
        // ag-psd reads the name only when the block holds it.
        if (length > MAX_LAYER_NAME && 2 * length <= block.length - 4) {
          throw unprocessable(`${owner[0].toUpperCase()}${owner.slice(1)} has a name of ${length.toLocaleString('en-US')} characters; a layer name may have at most ${MAX_LAYER_NAME.toLocaleString('en-US')}.`, [
            { path: 'layers', reason: `name of ${length} characters` },
          ]);
        }
        if (2 * length <= block.length - 4) tally.add(length, true);
      } else if (block.key === 'grdm') {
        // A gradient map's name, after its version, flags and (when present) its method.
        const at = block.data + 4 + (bytes[block.data + 4] ? 4 : 0);
        if (at + 4 <= bytes.length) tally.add(Math.min(view.getUint32(at), (bytes.length - at - 4) >> 1), true);
      } else if (LINKED.has(block.key)) {
        linkedFileNames(view, block.data, Math.min(bytes.length, block.data + block.length), tally);
      } else if (!NOT_DESCRIPTORS.has(block.key)) {
        blockDescriptors(view, block.key, block.data, tally);
      }
    }
  };
  try {
    for (const { index, at, end } of recordBlocks(bytes)) walk(at, end, `layer record ${index + 1}`);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e; // records past the bytes: ag-psd decides
  }
  try {
    const global = globalBlocks(bytes);
    if (global) walk(global.at, global.end, 'the document');
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
  }
  // Linked-file blocks a skeleton leaves out (psd/skeleton.ts): their names, read from the source.
  for (const { key, names } of linked) {
    where = `the document's '${key}' block`;
    for (const n of names) tally.add(n, true);
  }
  return tally.characters;
}

/**
 * Where the keys of the document's blocks nothing of ours reads from ag-psd lie, to be shown to
 * it with their last character '_', which it skips: annotations ('Anno': notes and sound clips,
 * which Photoshop does not print; it reads a text note a character at a time) and the document's
 * text engine data ('Txt2': ag-psd parses it a character at a time and copies it to base64 for the
 * text-on-a-path shapes, which nothing of ours draws; each type layer's own engine data, in its
 * 'TySh' block, is what its text is read from).
 */
export function unreadGlobalKeys(bytes: Uint8Array): number[] {
  try {
    const global = globalBlocks(bytes);
    if (!global) return [];
    return [...taggedBlocks(bytes, global.at, global.end)].filter((b) => b.key === 'Anno' || b.key === 'Txt2').map((b) => b.keyAt);
  } catch (e) {
    if (e instanceof RangeError) return [];
    throw e;
  }
}

/** Where the global tagged blocks lie (after the layer info and the global layer mask info). */
function globalBlocks(bytes: Uint8Array): { at: number; end: number } | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const large = view.getUint16(4) === 2;
  const u = (at: number) => (large ? view.getUint32(at) * 2 ** 32 + view.getUint32(at + 4) : view.getUint32(at));
  const size = large ? 8 : 4;
  let at = 26;
  at += 4 + view.getUint32(at);
  at += 4 + view.getUint32(at);
  const sectionLength = u(at);
  if (sectionLength === 0) return undefined;
  at += size;
  const end = at + sectionLength;
  at += size + u(at); // layer info
  at += 4 + view.getUint32(at); // global layer mask info
  return { at, end };
}

/** Linked files (smart objects' embedded and external files): each one's name. */
const LINKED = new Set(['lnk2', 'lnkD', 'lnk3']);
function linkedFileNames(view: DataView, at: number, end: number, tally: Tally): void {
  while (at + 8 < end) {
    const size = view.getUint32(at) * 2 ** 32 + view.getUint32(at + 4);
    const start = at + 8;
    // Type and version (8 bytes), the id (a Pascal string), then the name.
    const name = start + 8 + 1 + view.getUint8(start + 8);
    if (name + 4 > view.byteLength) return;
    tally.add(Math.min(view.getUint32(name), (view.byteLength - name - 4) >> 1), true);
    at = start + Math.ceil(size / 4) * 4;
  }
}

/**
 * Image resources ag-psd reads a character at a time (URL 1035, alpha channel names 1045, slices
 * 1050, URL list 1054, version info 1057) or as descriptors (layer comps 1065, timeline 1075,
 * sheet disclosure 1076, onion skins 1078, count 1080, print information 1082, path selection
 * 1088, plug-in 4000): nothing of ours reads them from ag-psd (psd/resources.ts reads the ICC
 * profile and the resolution; layer comps are never applied, docs/fidelity.md), so ag-psd is
 * shown them under id 0, which it skips, and their size costs nothing.
 */
const UNREAD_RESOURCES = new Set([1035, 1045, 1050, 1054, 1057, 1065, 1075, 1076, 1078, 1080, 1082, 1088, 4000]);

/**
 * Where the ids of those resources lie, to be shown to ag-psd as 0 (parsePsd puts them back).
 * Stops where the section cannot be walked.
 */
export function unreadResourceIds(bytes: Uint8Array): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: number[] = [];
  if (bytes.length < 30) return out;
  let at = 26;
  at += 4 + view.getUint32(at);
  if (at + 4 > bytes.length) return out;
  const end = Math.min(bytes.length, at + 4 + view.getUint32(at));
  at += 4;
  while (at + 12 <= end && view.getUint32(at) === 0x3842494d /* 8BIM */) {
    if (UNREAD_RESOURCES.has(view.getUint16(at + 4))) out.push(at + 4);
    at += 6 + ((bytes[at + 6] + 2) & ~1);
    if (at + 4 > end) break;
    const length = view.getUint32(at);
    at += 4 + length + (length & 1);
  }
  return out;
}
