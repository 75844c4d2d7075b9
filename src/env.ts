/** The Worker's bindings; declared in worker-env.d.ts so `cloudflare:workers` sees them too. */
export type Env = Cloudflare.Env;

export type AppBindings = { Bindings: Env };
