import pkg from '../package.json';

/** Set by the build (wrangler --define) when available; otherwise the module load time. */
export const VERSION: string = pkg.version;
export const APP_NAME = 'personalisation-platform';
