// A free TCP port for a server the tests start as a child process (wrangler dev, the demo shop).
// `listen(0)` would hand out a port from the kernel's ephemeral range, and once we close our probe
// the kernel may give that same port to any outgoing connection or `listen(0)` (workerd's own
// sockets among them) before the child binds it: CI lost a run to exactly that. So pick from
// below the ephemeral range (Linux: 32768–60999) and check that the port binds.
import { createServer } from 'node:net';

const LOW = 20_000;
const HIGH = 32_000;

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port between ${LOW} and ${HIGH}`);
}
