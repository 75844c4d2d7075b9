/**
 * Template defaults in PSD layer names (issue 21). As in Customer's Canvas, a layer's settings
 * travel in angle-bracket markers inside its name, case-insensitive:
 *   `<TOS_fitToBox>` fit shrink · `<TOS_fitToWidth>` fit shrinkToLine · `<TOS_clip>` fit none
 *   `<FMIN_7>` smallest size in pt for shrinking · `<MW_600>` max width of point text (template px)
 *   `<REQ>` a required variable · `<PPI_300>` effective-ppi threshold of a placed picture
 * Unknown markers are ignored but still stripped from the name a request may use.
 *
 * @example
 *   layerMarkers('Name <TOS_fitToBox><FMIN_7>')   // { fit: 'shrink', minSize: 7 }
 *   nameWithoutMarkers('Name <TOS_fitToBox>')     // 'Name'
 */

export type TextFit = 'none' | 'shrink' | 'shrinkToLine';

export interface LayerMarkers {
  fit?: TextFit;
  /** pt (template px at 72 ppi), the floor for shrinking. */
  minSize?: number;
  /** Template px: how wide point text may run. */
  maxWidth?: number;
  required?: boolean;
  /** Effective ppi below which a placed picture is flagged (half of it is an error). */
  ppi?: number;
}

/** `<WORD>` or `<WORD_value>`: letters first, then word characters, dots or hyphens. */
const MARKER = /<\s*([A-Za-z][A-Za-z0-9]*)(?:_([A-Za-z0-9.\-]*))?\s*>/g;

const FITS: Record<string, TextFit> = { fittobox: 'shrink', fittowidth: 'shrinkToLine', clip: 'none' };

const positive = (value: string | undefined): number | undefined => {
  const n = value === undefined ? NaN : Number(value);
  return Number.isFinite(n) && n > 0 ? n : undefined;
};

/** The settings a layer name carries; empty for a name without markers. */
export function layerMarkers(name: string): LayerMarkers {
  const out: LayerMarkers = {};
  if (!name.includes('<')) return out;
  for (const [, rawKey, value] of name.matchAll(MARKER)) {
    const key = rawKey.toLowerCase();
    if (key === 'tos' && value !== undefined) {
      const fit = FITS[value.toLowerCase()];
      if (fit) out.fit = fit;
    } else if (key === 'fmin') out.minSize = positive(value) ?? out.minSize;
    else if (key === 'mw') out.maxWidth = positive(value) ?? out.maxWidth;
    else if (key === 'ppi') out.ppi = positive(value) ?? out.ppi;
    else if (key === 'req' && value === undefined) out.required = true;
  }
  return out;
}

/** The name with every marker removed and spaces trimmed (a request's `data` may use either). */
export function nameWithoutMarkers(name: string): string {
  if (!name.includes('<')) return name;
  return name.replace(MARKER, ' ').replace(/\s+/g, ' ').trim();
}

/**
 * The request's command for a layer: under the layer's own name, else under its name without
 * markers (`data.Name` reaches a layer `Name <REQ>`, as buildOverrides finds it). Under both, the
 * later in `data`: buildOverrides applies commands in that order, so the later one is drawn.
 */
export function commandFor<T>(data: Readonly<Record<string, T>> | undefined, layerName: string): T | undefined {
  const own = data?.[layerName];
  if (!data || !layerName.includes('<')) return own;
  const bare = nameWithoutMarkers(layerName);
  const plain = data[bare];
  if (own === undefined || plain === undefined) return own ?? plain;
  const keys = Object.keys(data);
  return keys.indexOf(bare) > keys.indexOf(layerName) ? plain : own;
}
