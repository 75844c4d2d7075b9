// Stand-ins for external systems at the fetch boundary, served by the fixture server
// (test/global-setup.ts) under their own first path segment. Each is built from the system's
// public API documentation. Answers true when it handled the request.
import type { IncomingMessage, ServerResponse } from 'node:http';

export async function handleStandIn(
  _kind: string,
  _rest: string[],
  _url: URL,
  _req: IncomingMessage,
  _res: ServerResponse,
): Promise<boolean> {
  return false;
}
