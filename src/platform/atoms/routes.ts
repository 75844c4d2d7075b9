/**
 * Design atoms: /api/atoms/v1 (docs/platform.md, contract).
 *
 *   GET|HEAD /info    InfoDto (no token)
 */
import { createPlatformArea } from '../core';

export const atomsArea = createPlatformArea('atoms');
