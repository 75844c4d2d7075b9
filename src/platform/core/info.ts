/** `GET`/`HEAD /api/<area>/v1/info`, no token: build information of the platform service. */
import { z } from '@hono/zod-openapi';
import type { Env } from '../../env';
import { APP_NAME, VERSION } from '../../version';
import type { PlatformAreaName } from './paths';

/**
 * When this build was made: `BUILD_DATE` if the deploy defines it (wrangler --define), else the
 * first request this isolate served (Workers freeze the clock while modules load).
 */
declare const BUILD_DATE: string | undefined;
let buildDate: string | undefined;
const getBuildDate = () => (buildDate ??= typeof BUILD_DATE === 'string' ? BUILD_DATE : new Date().toISOString());

/** The design-atoms object model version the atoms and processor areas speak. */
export const DESIGN_ATOMS_MODEL_VERSION = '1';

export const InfoDto = z
  .object({
    version: z.string().openapi({ example: VERSION }),
    buildDate: z.string().openapi({ example: '2026-11-24T00:00:00.000Z' }),
    configuration: z.enum(['Development', 'Release']),
    appName: z.string().openapi({ example: APP_NAME }),
    designAtomsVersion: z.string().optional().openapi({ description: 'atoms and processor only.' }),
    designAtomsModelVersion: z.string().optional().openapi({ description: 'atoms and processor only; "1".' }),
  })
  .openapi('InfoDto');

export function buildInfo(area: PlatformAreaName, env: Env): z.infer<typeof InfoDto> {
  const info: z.infer<typeof InfoDto> = {
    version: VERSION,
    buildDate: getBuildDate(),
    configuration: env.REGION === 'local' ? 'Development' : 'Release',
    appName: APP_NAME,
  };
  if (area === 'atoms' || area === 'processor') {
    info.designAtomsVersion = VERSION;
    info.designAtomsModelVersion = DESIGN_ATOMS_MODEL_VERSION;
  }
  return info;
}
