/**
 * What one render of a compiled template carries through the compositor (composite/compositor.ts) and
 * the layer effects it draws (effects.ts): its own module so that neither imports the other.
 */
import type { Bounds, CompiledTemplate, RenderOptions, RGBAImage } from '../types';
import type { StripBuffers } from '../compiled/store';
import type { KnockoutScope } from './knockout';
import type { Surface } from './surface';

export interface RenderContext {
  bucket: R2Bucket;
  compiled: CompiledTemplate;
  scale: number;
  level: number;
  /** Level pixels → output pixels. */
  factor: number;
  /** Output rectangle being rendered. */
  clip: Bounds;
  overrides: NonNullable<RenderOptions['overrides']>;
  /** Document patterns loaded for pattern overlays, by id. */
  patterns: Map<string, RGBAImage | null>;
  /** Where backdrops are kept instead of the isolate's backdropCache (see BackdropStore). */
  backdrops?: BackdropStore;
  /** Kept from strip to strip of a frame (the canvas, the band rows read): see StripBuffers. */
  buffers?: StripBuffers;
  /** What a knockout reveals in the group being drawn (composite/knockout.ts); unset at the root. */
  knockout?: KnockoutScope;
  /** The document's Background alone over the rows rendered (null: none), once a knockout asks. */
  background?: Surface | null;
  /**
   * Inside a pass-through group composited apart over its backdrop (Fill below 100 %, or a
   * clipping base: compositor.ts drawApart): pass-through groups within keep their adjustments
   * to what their own layers cover, as that group does.
   */
  adjustmentsApart?: boolean;
}

/** What layer effects (effects.ts) read of a render: the ink compositor builds one without a bucket. */
export type EffectContext = Pick<RenderContext, 'compiled' | 'overrides' | 'scale' | 'patterns'>;

/**
 * A caller's own place for backdrops (print PDFs keep full-resolution strip backdrops in R2):
 * when given, renders read and write backdrops only there. Keys are content-addressed like
 * backdropCache's (compiled hash, scale, rows, cut).
 */
export interface BackdropStore {
  get(key: string, bytes: number): Promise<Uint8Array | null>;
  set(key: string, data: Uint8ClampedArray): Promise<void>;
}
