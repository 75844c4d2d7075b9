/**
 * Asset storage: /api/storage/v1 (docs/platform.md, contract).
 *
 *   GET|HEAD /info    InfoDto (no token)
 */
import { createPlatformArea } from '../core';

export const storageArea = createPlatformArea('storage');
