// A plain FTP server for the upload-to-ftp tests, started by test/global-setup.ts (Node side):
// USER/PASS (user "bench", password "secret"), TYPE, PWD, CWD, MKD, EPSV, PASV, STOR, RNFR/RNTO, QUIT.
// Files are kept in memory; GET /ftp-files on the fixture server lists them ({path: size}).
import { createServer, type Server, type Socket } from 'node:net';

export const ftpFiles: Record<string, number> = {};

export async function startFtpServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const servers: Server[] = [];
  const control = createServer((socket: Socket) => {
    let cwd = '/';
    let user = '';
    let authed = false;
    let pending: Promise<Socket> | null = null;
    let renameFrom = '';
    const reply = (line: string) => socket.write(`${line}\r\n`);
    const resolve = (p: string) => (p.startsWith('/') ? p : `${cwd.replace(/\/$/, '')}/${p}`).replace(/\/+/g, '/');
    const dirs = new Set<string>(['/']);
    reply('220 test FTP server');
    let buffer = '';
    socket.on('data', async (chunk) => {
      buffer += chunk.toString();
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl).replace(/\r$/, '');
        buffer = buffer.slice(nl + 1);
        const [cmd, ...rest] = line.split(' ');
        const arg = rest.join(' ');
        switch ((cmd ?? '').toUpperCase()) {
          case 'USER':
            user = arg;
            reply('331 password please');
            break;
          case 'PASS':
            authed = user === 'bench' && arg === 'secret';
            reply(authed ? '230 logged in' : '530 login incorrect');
            break;
          case 'TYPE':
            reply('200 type set');
            break;
          case 'PWD':
            reply(`257 "${cwd}"`);
            break;
          case 'CWD':
            if (dirs.has(resolve(arg)) || arg === '/') {
              cwd = resolve(arg);
              reply('250 ok');
            } else reply('550 no such directory');
            break;
          case 'MKD':
            dirs.add(resolve(arg));
            reply('257 created');
            break;
          case 'EPSV':
          case 'PASV': {
            if (!authed) {
              reply('530 not logged in');
              break;
            }
            const data = createServer();
            servers.push(data);
            pending = new Promise((ok) => data.once('connection', (s) => (data.close(), ok(s))));
            await new Promise<void>((ok) => data.listen(0, '127.0.0.1', ok));
            const port = (data.address() as { port: number }).port;
            reply(cmd!.toUpperCase() === 'EPSV' ? `229 Entering Extended Passive Mode (|||${port}|)` : `227 Entering Passive Mode (10,0,0,1,${port >> 8},${port & 255})`);
            break;
          }
          case 'STOR': {
            if (!pending) {
              reply('425 use PASV first');
              break;
            }
            const path = resolve(arg);
            reply('150 ok to send data');
            const data = await pending;
            pending = null;
            let size = 0;
            data.on('data', (c: Buffer) => (size += c.length));
            data.on('close', () => {
              ftpFiles[path] = size;
              reply('226 transfer complete');
            });
            break;
          }
          case 'RNFR':
            renameFrom = resolve(arg);
            reply(renameFrom in ftpFiles ? '350 ready for RNTO' : '550 no such file');
            break;
          case 'RNTO':
            if (!(renameFrom in ftpFiles)) {
              reply('503 RNFR first');
              break;
            }
            ftpFiles[resolve(arg)] = ftpFiles[renameFrom]!;
            delete ftpFiles[renameFrom];
            reply('250 renamed');
            break;
          case 'QUIT':
            reply('221 bye');
            socket.end();
            break;
          default:
            reply('502 not implemented');
        }
      }
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((ok) => control.listen(0, '127.0.0.1', ok));
  return {
    port: (control.address() as { port: number }).port,
    close: async () => {
      for (const s of servers) s.close();
      await new Promise((ok) => control.close(ok));
    },
  };
}
