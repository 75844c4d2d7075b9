import type { Layer, LayerRawData } from 'ag-psd';
import { unprocessable } from '../errors';
import { forgetTemplate } from '../cache';
import type { BackdropStore } from '../composite/context';
import { adjustmentIn16Bits, adjustmentIn32Bits, adjustmentInGrey } from '../composite/adjust';
import { LayerRenderError, renderTemplate } from '../composite/compositor';
import { intersectRect } from '../composite/surface';
import { channelRows, layerColorRows } from '../psd/channels';
import { ColorMode, documentMode, fitModeFeatures, type IndexedPalette, indexedPalette, interleaveFour, refuseUnreadPatterns, usableCmykProfile } from '../psd/color-modes';
import { adjustmentInCmyk } from '../composite/cmyk-adjust';
import { compositeRows, decodeComposite } from '../psd/composite';
import { parsePsd } from '../psd/parse';
import { readChannelRestrictions } from '../psd/records';
import { multichannelInks } from '../psd/multichannel';
import { readPatterns } from '../psd/patterns';
import { readImageResources } from '../psd/resources';
import { ChannelWindows, readSkeleton, withMerged, type StoredChannel } from '../psd/skeleton';
import { bytesSource, isPsdSource, type PsdSource } from '../psd/source';
import { buildTree, pixelMaskSource } from '../psd/tree';
import { walkLayers } from './info';
import { refuseUnmodelled } from './unsupported';
import { spotLayers, type CompiledWithSpots } from './spots';
import { compilerLayer } from './canvas-layer';
import { readSpotChannels } from '../psd/spots';
import type { Bounds, CompiledTemplate, LayerNode } from '../types';
import { Packer } from './blob';
import { packable, PackWriter } from './packs';
import { BandBuffers, type BandSink, levelCount, PyramidWriter } from './pyramid';
import { AlphaBox } from './alpha-box';
import { compositeKey, iccKey, loadCompiledTemplate, maskKey, patternKey, pixelKey, prefix, treeKey } from './store';

/** Bumped whenever compiled output changes meaning; part of every compiled hash. */
export const ENGINE_VERSION = 'psd-engine/20'; // 20: small bands stored together in packs the tree indexes (compiled/packs.ts; a tree compiled before reads each band alone, which still works, but its objects are not this version's layout); 19: patterns compiled with their transparency, read from the bytes by psd/patterns.ts (ag-psd made every pattern opaque; a tree compiled before tiles them solid), and patterns of every mode and depth (were dropped in all but 8-bit RGB, Grayscale, Indexed: issue 25 §2); 18: the tree holds gradient fills' settings (fillGradient: drawn where the record stores no pixels), Levels marked in 16-bit documents and Levels and Exposure in 32-bit ones (issue 25 §2); 17: the tree holds a CMYK adjustment's excluded inks (excludedInks), Shape Burst strokes (were refused), the Fill and shape of shapes with fill and stroke off, and only the effects Photoshop shows (present); Lab, 32-bit and Multichannel documents compile (issue 25 §2); 16: the tree holds Blend Interior Effects as Group (blendInterior), a pattern stroke's scale, and the mask parameters of blocks without a real-mask header (issue 25 §2); 15: the tree holds what the render now reads (issue 25 §2): CMYK Levels/Curves K records, 16-bit Posterize/Threshold marks, HSB and Lab shape colours, soft-filled shapes (softFill), and effects blocks ag-psd cannot read refused; 14: a CMYK document's adjustments worked out on its inks (composite/cmyk-adjust.ts; a tree compiled before holds a hidden one without its ink table, which a request could show); 13: a Grayscale document's exposure, levels and curves fitted to its grey (composite/adjust.ts adjustmentInGrey); 12: spot channels shown by layers of their own (compiled/spots.ts); 11: CMYK documents converted through ICC profiles (LittleCMS)

/** Photoshop's composite is kept for fidelity checks only up to this many pixels. */
const MAX_STORED_COMPOSITE = 4_000_000;

/** How much of a stored PSD is read at a time to hash it. */
const HASH_READ_BYTES = 8 * 1024 * 1024;

/**
 * The compiled form's name, SHA-256 of the PSD's bytes then the engine version, taken as the bytes
 * come: an upload streamed into R2 is hashed on its way (`add` each chunk in order, then `finish`).
 */
export function templateHasher(): { add(chunk: Uint8Array): Promise<void>; finish(): Promise<string> } {
  const digest = new (crypto as unknown as { DigestStream: typeof DigestStream }).DigestStream('SHA-256');
  const writer = digest.getWriter();
  return {
    add: (chunk) => writer.write(chunk),
    async finish() {
      await writer.write(new TextEncoder().encode(ENGINE_VERSION));
      await writer.close();
      return [...new Uint8Array(await digest.digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
    },
  };
}

export async function templateHash(psd: Uint8Array | PsdSource): Promise<string> {
  const hasher = templateHasher();
  if (isPsdSource(psd)) {
    for (let at = 0; at < psd.size; at += HASH_READ_BYTES) await hasher.add(await psd.read(at, Math.min(HASH_READ_BYTES, psd.size - at)));
  } else {
    await hasher.add(psd);
  }
  return hasher.finish();
}

/**
 * Compiles a PSD/PSB once into its R2 form (see ./store.ts for the layout). Idempotent by content
 * hash. Layer pixels are decoded one layer at a time and written as a pyramid before the next, so
 * memory stays near the PSD bytes plus one layer. Refuses unsupported files with a 422.
 * `options.hash`: the input's templateHash when the caller already has it (an upload hashed as it
 * streamed into R2), so a stored PSD is not read once more only to name it.
 */
export async function compileTemplate(
  bucket: R2Bucket,
  input: Uint8Array | PsdSource,
  options: { hash?: string; readWhole?: boolean } = {},
): Promise<CompiledTemplate> {
  const hash = options.hash ?? (await templateHash(input));
  const existing = await loadCompiledTemplate(bucket, hash);
  if (existing) return existing;
  // The file's structure without its pixels (psd/skeleton.ts), bytes in memory or not: one path,
  // their reads are views. Layers' channels are read in just before each is decoded, the merged
  // image only where it is used. `readWhole`: the file read whole, as before (tests compare).
  const source = isPsdSource(input) ? input : bytesSource(input);
  const skeleton = await readSkeleton(source, { whole: options.readWhole });
  const psd = skeleton.bytes;
  let full: Uint8Array | undefined;
  /** The window the layers' channels were last read into, when it holds the merged image. */
  let tail: { at: number; bytes: Uint8Array } | undefined;
  /** The skeleton with its merged image (the whole file when it was read whole). */
  const merged = async () => (full ??= await withMerged(skeleton, source, tail));

  const doc = parsePsd(psd, skeleton);
  const resources = readImageResources(psd);
  const visited: Array<[Layer, LayerNode]> = [];
  const layers = buildTree(
    doc,
    (layer, node) => visited.push([layer, node]),
    resources.resolution ?? 72,
    readChannelRestrictions(psd),
  );
  // Before anything is written: what would be drawn wrong is refused, not drawn.
  refuseUnmodelled(layers, new Map(visited.map(([layer, node]) => [node, layer])));
  const { mode, depth } = documentMode(doc);
  // Flat documents: an Indexed one's colour table, a Multichannel one's inks.
  const palette: IndexedPalette | undefined =
    mode === ColorMode.Multichannel ? { colors: new Uint8Array(0), inks: multichannelInks(psd) } : indexedPalette(psd);
  fitModeFeatures(mode, layers);
  if (depth === 16) {
    // Posterize and Threshold step on the 16-bit values in Photoshop (composite/adjust.ts).
    for (const node of walkLayers(layers)) if (node.adjustment) node.adjustment = adjustmentIn16Bits(node.adjustment);
  }
  if (depth === 32) {
    // Exposure and Levels act on the floats as stored in Photoshop (composite/adjust.ts adjustmentIn32Bits).
    for (const node of walkLayers(layers)) if (node.adjustment) node.adjustment = adjustmentIn32Bits(node.adjustment);
  }
  if (mode === ColorMode.Grayscale) {
    for (const node of walkLayers(layers)) if (node.adjustment) node.adjustment = adjustmentInGrey(node.adjustment);
  }
  if (mode === ColorMode.CMYK) {
    const profile = usableCmykProfile(resources.icc);
    for (const node of walkLayers(layers)) {
      if (!node.adjustment) continue;
      // A restriction goes into the table only in Normal mode, where it keeps the inks untouched.
      const normal = node.blendMode === 'normal';
      const fitted = adjustmentInCmyk(node.adjustment, profile, normal ? node.excludedChannels : undefined);
      if (normal && fitted.adjustment !== node.adjustment) delete node.excludedChannels;
      node.adjustment = fitted.adjustment;
    }
  }
  // The patterns with their transparency, read from the bytes (ag-psd's reader makes them opaque).
  const documentPatterns = readPatterns(psd, resources.icc);
  delete doc.patterns; // ag-psd's opaque copies: not read past here
  const unread = new Map(documentPatterns.flatMap((p) => (p.unread ? [[p.id, p.unread] as const] : [])));
  refuseUnreadPatterns(doc.children ?? [], new Set(documentPatterns.flatMap((p) => (p.data ? [p.id] : []))), mode, depth, unread);
  const canvas: Bounds = { left: 0, top: 0, right: doc.width, bottom: doc.height };
  const levels = levelCount(doc.width, doc.height);
  const written: string[] = [];
  const writes = new Writes(WRITE_BYTES_IN_FLIGHT);
  const packer = new Packer();
  const store = (key: string, packed: { bytes: Uint8Array; release: () => void }) => {
    written.push(key);
    return writes.add(bucket.put(key, packed.bytes).finally(packed.release), packed.bytes.byteLength);
  };
  // Small bands go into packs of their level and rows (./packs.ts), written as they fill.
  const packs = new PackWriter(prefix(hash), store, true);
  /** A band's stored bytes: into its pack when small (`group`: its level and band), else alone. */
  const keep = (key: string, inflated: number, packed: { bytes: Uint8Array; release: () => void }, group?: string) => {
    if (group === undefined || !packable(inflated, packed.bytes.length)) return store(key, packed);
    try {
      return packs.add(group, key, packed.bytes);
    } finally {
      packed.release(); // copied into the pack
    }
  };
  // Packed before the write is let go: `data` is the pyramid writer's band, refilled once this
  // resolves. The packed bytes go back to the packer once written.
  const put = async (key: string, data: Uint8Array, group?: string) => keep(key, data.length, await packer.pack(data), group);
  /**
   * Where a pyramid's bands go, by key: level 0's packed as its rows come (Packer.stream), so a
   * 10,000 px wide layer holds no 10 MB band (docs/memory.md, "The upload's peak"); `keys` gets
   * every key written.
   */
  const bandsTo = (key: (level: number, band: number) => string, keys?: string[]): BandOutput => ({
    write: (k, b, d) => {
      keys?.push(key(k, b));
      return put(key(k, b), d, `${k}/${b}`);
    },
    level0: (b, bytes) => {
      const name = key(0, b);
      keys?.push(name);
      const sink = packer.stream(bytes);
      return { add: (row) => sink.add(row), end: async () => keep(name, bytes, await sink.finish(), `0/${b}`) };
    },
  });

  // Layers are written one at a time: their pyramids fill the same band buffers.
  const bands = new BandBuffers();
  // Their channels are read in the same order, consecutive small layers in one get.
  const rawChannels = (layer: Layer) => (layer.rawData?.channels ?? []) as StoredChannel[];
  const windows = new ChannelWindows(source, visited.map(([layer]) => rawChannels(layer)), skeleton.window);
  delete skeleton.window; // the windows let it go when they move on

  try {
    for (const [i, [layer, node]] of visited.entries()) {
      const raw = layer.rawData;
      if (raw) await windows.load(i, rawChannels(layer));
      if (raw && !layer.children) {
        const keys: string[] = [];
        const pixels = await writeLayerPyramid(raw, node.bounds, canvas, levels, 4, bandsTo((k, b) => pixelKey(hash, node.id, k, b), keys), bands);
        if (pixels) {
          node.hasPixels = true;
          node.pixelBounds = pixels.stored;
          if (pixels.alpha) node.alphaBounds = pixels.alpha;
        } else if (keys.length) {
          // Fully transparent: nothing worth keeping (its bands at the end of pending packs cut).
          const alone = packs.drop(keys);
          if (alone.length) {
            await writes.drain(); // its bands may still be on their way
            await bucket.delete(alone);
          }
        }
      }
      // Groups carry masks too (their pixels are their children's).
      if (node.mask) {
        const src = pixelMaskSource(layer);
        const bounds =
          raw && src
            ? await writeLayerPyramid(raw, node.mask.bounds, canvas, levels, 1, bandsTo((k, b) => maskKey(hash, node.id, k, b)), bands, src.real ? -3 : -2, node.mask.defaultColor)
            : null;
        if (bounds) node.mask.bounds = bounds.stored;
        else node.mask.hasPixels = false;
      }
      // Done with this layer's compressed bytes.
      delete layer.rawData;
    }
    tail = windows.release(skeleton.merged);

    // A document whose layers hold no pixels (none at all, or only empty ones as some writers
    // leave) is its merged image: it becomes the bottom Image layer.
    const all = [...walkLayers(layers)];
    if (!all.some((n) => n.hasPixels || n.adjustment) && doc.rawCompositeData && doc.rawCompositeData.length > 2) {
      const id = all.reduce((m, n) => Math.max(m, n.id + 1), 0);
      const image = (await merged()).subarray(psd.length - doc.rawCompositeData.length);
      layers.push(await flatLayer(id, image, doc, psd[5] === 2, resources.mergedAlpha, levels, bandsTo((k, b) => pixelKey(hash, id, k, b)),
      bands, mode, depth, palette, resources.icc));
      // Photoshop's own render of such a document holds its gradient fills exactly: they are not
      // drawn again from their settings over it (composite/gradient-fill.ts approximates them).
      for (const n of all) delete n.fillGradient;
    }
    // Every pyramid is built (the rest writes whole blobs): their band buffers go back now, so
    // what follows (the composite, the trial render, storing the PSD) reuses their pages.
    bands.release();
    // Spot channels: shown over everything in previews by layers of their own (./spots.ts).
    const channels = readSpotChannels(psd);
    const spots = channels.length
      ? await spotLayers(await merged(), channels, [...walkLayers(layers)].reduce((m, n) => Math.max(m, n.id + 1), 0), levels, (id, k, b, d) => put(pixelKey(hash, id, k, b), d, `${k}/${b}`))
      : undefined;
    if (spots) layers.unshift(...spots.layers);

    const compiled: CompiledWithSpots = {
      hash,
      engineVersion: ENGINE_VERSION,
      width: doc.width,
      height: doc.height,
      resolution: resources.resolution ?? 72,
      levels,
      transparent: resources.mergedAlpha,
      globalAngle: doc.imageResources?.globalAngle,
      globalAltitude: doc.imageResources?.globalAltitude,
      textGamma: /Photoshop CS\d?\b/.test(resources.creatorTool ?? '') ? 1 : 1.45,
      layers,
      ...(spots ? { spots: spots.spots } : {}),
    };
    const patterns = documentPatterns.filter((p): p is typeof p & { data: Uint8Array } => !!p.data);
    if (patterns.length) {
      compiled.patterns = [];
      for (const [i, p] of patterns.entries()) {
        await put(patternKey(hash, i), p.data);
        compiled.patterns.push({ id: p.id, name: p.name, width: p.width, height: p.height, key: patternKey(hash, i) });
      }
    }
    const stand = doc.rawCompositeData;
    delete doc.rawCompositeData;
    if (stand && stand.length > 2 && doc.width * doc.height <= MAX_STORED_COMPOSITE) {
      const large = psd[5] === 2;
      const image = (await merged()).subarray(psd.length - stand.length);
      const composite = decodeComposite(image, doc.width, doc.height, doc.channels ?? 3, large, resources.mergedAlpha, mode, depth, palette, resources.icc);
      await put(compositeKey(hash), composite);
      compiled.compositeKey = compositeKey(hash);
    }
    full = tail = undefined; // the merged image is not read past here
    // Outputs are RGB and embed this profile: a Grayscale or CMYK document's profile describes
    // its own channels, not the sRGB its pixels were converted to (untagged output is sRGB).
    if (resources.icc && mode === ColorMode.RGB) {
      written.push(iccKey(hash));
      await bucket.put(iccKey(hash), resources.icc);
      compiled.iccKey = iccKey(hash);
    }
    await packs.finish();
    if (packs.packs.length) compiled.packs = packs.packs;
    await writes.drain(); // the trial render reads the pyramid back
    packer.release(); // every blob is written: its output arrays go back before the trial render
    await trialRender(bucket, compiled);
    written.push(treeKey(hash));
    await bucket.put(treeKey(hash), JSON.stringify(compiled), {
      httpMetadata: { contentType: 'application/json' },
    });
    return compiled;
  } catch (e) {
    // Nothing half-written stays behind (once no write is still on its way).
    await writes.drain().catch(() => {});
    await Promise.allSettled(written.map((k) => bucket.delete(k)));
    // Reading past a truncated channel or inflating garbage: the file, not us.
    if (e instanceof RangeError || e instanceof TypeError) {
      throw unprocessable(`The PSD's pixel data could not be decoded: ${e.message}`);
    }
    throw e;
  } finally {
    // Every write is done (drained above): their memory is given back now, not at V8's next
    // collection, so the upload's next step (storing the PSD) reuses it.
    bands.release();
    packer.release();
    packs.release();
    windows.release();
  }
}

/**
 * Packed band bytes whose R2 writes may be on their way while the next rows are decoded. Counted
 * in bytes, not writes: a band of a 10,000 px wide layer is 10 MB (as much packed when it hardly
 * compresses), and four of them in flight (the old limit) made the upload of a 10,000² PSD hold
 * 73 MB live in Node, 63 MB with this limit (docs/memory.md, "workerd, measured"). Narrow or
 * compressible layers still get several writes.
 */
export const WRITE_BYTES_IN_FLIGHT = 12 * 1024 * 1024;

/**
 * R2 writes of compiled bands run while the next rows are decoded: after `add`, at most
 * `limitBytes` of their packed bands (each ≤ 256 rows) stay in flight, but always the newest one
 * and never more than MAX_WRITES; `add` waits for room, and the first failure is thrown by the
 * next `add` or by `drain`.
 */
class Writes {
  private static readonly MAX_WRITES = 4;
  private readonly inFlight = new Map<Promise<void>, number>();
  private bytes = 0;
  private failed: { error: unknown } | undefined;

  constructor(private readonly limitBytes: number) {}

  async add(write: Promise<unknown>, bytes: number): Promise<void> {
    const tracked: Promise<void> = write
      .then(() => {})
      .catch((error: unknown) => {
        this.failed ??= { error };
      })
      .finally(() => {
        this.bytes -= this.inFlight.get(tracked) ?? 0;
        this.inFlight.delete(tracked);
      });
    this.inFlight.set(tracked, bytes);
    this.bytes += bytes;
    while (this.inFlight.size >= Writes.MAX_WRITES || (this.inFlight.size > 1 && this.bytes > this.limitBytes)) {
      await Promise.race(this.inFlight.keys());
    }
    if (this.failed) throw this.failed.error;
  }

  async drain(): Promise<void> {
    await Promise.all(this.inFlight.keys());
    if (this.failed) throw this.failed.error;
  }
}

/**
 * Renders the compiled template once before it is accepted, at its smallest pyramid level and in
 * a full-size strip through its middle (the two take a few milliseconds). A layer the compositor
 * cannot draw is refused here with a 422 that names it and its features, instead of answering
 * 500 to every preview later. Backdrops are not cached: this render serves nobody.
 */
async function trialRender(bucket: R2Bucket, compiled: CompiledTemplate): Promise<void> {
  const backdrops: BackdropStore = { get: async () => null, set: async () => {} };
  const middle = Math.floor(compiled.height / 2);
  try {
    await renderTemplate(bucket, compiled, { scale: 2 ** -(compiled.levels - 1), background: 'transparent', backdrops });
    await renderTemplate(bucket, compiled, { scale: 1, region: { top: middle, bottom: middle + 8 }, background: 'transparent', backdrops });
  } catch (e) {
    if (!(e instanceof LayerRenderError)) throw e;
    console.error('trial render failed', e.cause);
    throw unprocessable(`The template cannot be rendered: layer "${e.layer}" uses a combination the renderer cannot draw (${e.features}).`, [
      { path: `layers.${e.layer}`, reason: e.features },
    ]);
  }
}

/** Deletes every compiled object of one hash (a re-upload replaces what was derived). */
export async function deleteCompiledTemplate(bucket: R2Bucket, hash: string): Promise<void> {
  forgetTemplate(hash);
  let cursor: string | undefined;
  do {
    const list = await bucket.list({ prefix: prefix(hash), cursor });
    if (list.objects.length) await bucket.delete(list.objects.map((o) => o.key));
    cursor = list.truncated ? list.cursor : undefined;
  } while (cursor);
}

/** A pyramid's output: bands of levels 1 and up (level 0's too without `level0`), and level 0's as they come. */
interface BandOutput {
  write: (level: number, band: number, data: Uint8Array) => Promise<void>;
  level0?: (band: number, bytes: number) => BandSink;
}

async function flatLayer(
  id: number,
  merged: Uint8Array,
  doc: { width: number; height: number; channels?: number },
  large: boolean,
  hasAlpha: boolean,
  levels: number,
  out: BandOutput,
  bands: BandBuffers,
  mode?: number,
  depth?: number,
  palette?: IndexedPalette,
  icc?: Uint8Array,
): Promise<LayerNode> {
  const bounds = { left: 0, top: 0, right: doc.width, bottom: doc.height };
  const rows = compositeRows(merged, doc.width, doc.height, doc.channels ?? 3, large, hasAlpha, mode, depth, palette, icc);
  const writer = new PyramidWriter(bounds, levels, 4, 0, out.write, bands, out.level0);
  for (let y = 0; y < doc.height; y++) {
    const written = writer.push(y, rows.next());
    if (written) await written;
  }
  await writer.finish();
  return compilerLayer(id, 'Background', bounds);
}

/**
 * Decodes one layer's channels row by row (RGBA, or one mask channel), cropped to the canvas, and
 * streams them through the pyramid writer. Returns the stored bounds and, for RGBA, the box of
 * the layer's non-zero alpha (./alpha-box.ts), or null when nothing visible was there (RGBA all
 * transparent, or no rows on the canvas).
 */
async function writeLayerPyramid(
  raw: LayerRawData,
  bounds: Bounds,
  canvas: Bounds,
  levels: number,
  channels: 1 | 4,
  out: BandOutput,
  bands: BandBuffers,
  maskChannel = -2,
  fill = 0,
): Promise<{ stored: Bounds; alpha: Bounds | null } | null> {
  const crop = intersectRect(bounds, canvas);
  if (!crop) return null;
  const width = bounds.right - bounds.left;
  const height = bounds.bottom - bounds.top;
  if (channels === 1 && !raw.channels.some((c) => c.id === maskChannel && c.data?.length)) return null;
  // Rows are read from the canvas's top edge on, not the layer's (which may lie far above it);
  // colour rows come as 8-bit R, G, B, A whatever the document's mode and depth.
  const first = crop.top - bounds.top;
  const mask = channels === 1 && channelRows(raw.channels.find((c) => c.id === maskChannel), width, height, raw.large, fill, first, raw.bitsPerChannel ?? 8);
  const reader = mask ? { next: () => [mask.next()], finish: () => mask.finish() } : layerColorRows(raw, raw.colorMode ?? 3, width, height, first);
  const cw = crop.right - crop.left;
  const off = crop.left - bounds.left;
  const row = new Uint8Array(cw * channels);
  const writer = new PyramidWriter(crop, levels, channels, fill, out.write, bands, out.level0);
  // Found here, where every row passes anyway: the renderer sees only the rows a strip loads.
  const alpha = channels === 4 ? new AlphaBox(crop) : null;
  for (let y = crop.top; y < crop.bottom; y++) {
    const rows = reader.next();
    if (channels === 1) row.set(rows[0].subarray(off, off + cw));
    else {
      interleaveFour(rows, row, off, cw);
      alpha?.add(y, row);
    }
    const written = writer.push(y, row);
    if (written) await written; // a band on its way: `row` is refilled after
  }
  // Each channel, one after the other, must end where its rectangle does (ZIP bombs).
  reader.finish();
  await writer.finish();
  if (!alpha) return { stored: crop, alpha: null };
  const box = alpha.result(bounds);
  return box ? { stored: crop, alpha: box } : null;
}

