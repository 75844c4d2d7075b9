/**
 * Asset processor: /api/processor/v1 (docs/platform.md, contract).
 *
 *   GET|HEAD /info    InfoDto (no token)
 */
import { createPlatformArea } from '../core';

export const processorArea = createPlatformArea('processor');
