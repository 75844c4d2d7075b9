/**
 * Rendering jobs: /api/rendering/v1 (docs/platform.md, contract).
 *
 *   GET|HEAD /info    InfoDto (no token)
 */
import { createPlatformArea } from '../core';

export const renderingJobsArea = createPlatformArea('rendering');
