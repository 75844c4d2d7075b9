import { createApp } from './app';
import type { Env } from './env';

export { ProjectJobs } from './platform/jobs/project-jobs';

const app = createApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
