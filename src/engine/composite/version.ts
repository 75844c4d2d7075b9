/**
 * Bumped whenever the compositor's pixels change (anything under composite/, or the kernels and
 * personalisation it draws with), without the compiled form changing (that is ENGINE_VERSION,
 * which recompiles templates). Part of the keys of rendered pixels kept in R2 (print PDF strips
 * and their backdrops), which outlive a deployment; per-isolate caches start empty with new code.
 */
export const RENDER_VERSION = 10; // 10: gradient overlays and strokes span the box of the layer's non-zero alpha found at compile (LayerNode.alphaBounds; templates compiled before keep the stored bounds); strokes and distance-measured effects measure to the nearest half-covered pixel as well as the nearest by centre, no longer to the nearest wholly covered one; an emboss of odd size splits it in whole pixels, the half rounded up (issue 25 §2). 9: linear gradient overlays and strokes ramp between the pixels their ends fall in (issue 25 §2). 8: shadows' offsets and spreads in whole pixels (issue 25 §2). 7: gradients drawn in their interpolation method (Perceptual, Linear; issue 25 §2). 6: Posterize, Threshold, Brightness, Soft Light, Vivid Light, Hard Mix as Photoshop renders them; a clipping base's interior effects over its group's own coverage (issue 25 §2)
