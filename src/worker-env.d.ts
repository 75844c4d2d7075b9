// Bindings and variables of the Worker (wrangler.toml, .dev.vars, `wrangler secret put`), merged
// into the global Cloudflare types so `env` and `exports` from `cloudflare:workers` are typed.
declare namespace Cloudflare {
  interface Env {
    DB: D1Database;
    FILES: R2Bucket;
    PROJECT_JOBS: DurableObjectNamespace<import('./platform/jobs/project-jobs').ProjectJobs>;
    /** One webhook outbox per tenant (src/platform/webhooks/outbox.ts). */
    WEBHOOK_OUTBOX: DurableObjectNamespace<import('./platform/webhooks/outbox').WebhookOutbox>;
    /** Comma-separated service areas this deployment serves: identity, rendering, platform. */
    SERVICES: string;
    /** The identity issuer URL of this regional instance. */
    ISSUER: string;
    REGION: string;
    /** Absolute base for result URLs; empty means "the request's origin". */
    PUBLIC_BASE_URL: string;
    RESULT_TTL_HOURS: string;
    /** Development only: comma-separated hosts outbound fetches may reach although internal (src/http/outbound.ts). */
    OUTBOUND_ALLOW_HOSTS?: string;
    /** Rate limit of sign-in attempts per client IP (wrangler.toml [[ratelimits]]). */
    LOGIN_IP_LIMITER: RateLimit;
    /** Secret: encrypts the private parts of signing keys at rest. */
    KEY_ENCRYPTION_SECRET: string;
    /** upload-to-dropbox endpoints (tests point them at a local server); default Dropbox's. */
    DROPBOX_API_URL?: string;
    DROPBOX_CONTENT_URL?: string;
    /** Tests only: `<task>:after-outputs` (comma-separated) aborts the ProjectJobs object once before a unit's commit. */
    PIPELINE_FAULTS?: string;
    /** Secret: the Dynamic Image API key (header X-DynamicImageApiKey). */
    RENDERING_API_KEY: string;
    /** Secret (optional): signs preview GET URLs (src/dynamic-image/signed.ts); RENDERING_API_KEY when unset. */
    PREVIEW_URL_SECRET?: string;
    /** "true" serves preview GET URLs without a signature (default "false"). */
    PREVIEW_ALLOW_UNSIGNED?: string;
    /** "false" skips the R2 copy of a rendered preview GET (one-location local dev only; default on). */
    PREVIEW_R2_COPY?: string;
  }
  interface GlobalProps {
    mainModule: typeof import('./index');
    durableNamespaces: 'ProjectJobs';
  }
}
