/**
 * Values that reach someone else's protocol, checked after interpolation (docs/security.md):
 *
 * - `protocolValue`: CR, LF and NUL end a protocol line (an FTP command, an SFTP request, an HTTP
 *   header); a value holding one would smuggle a second command into the merchant's session.
 *   Refused as a task failure naming the parameter, never cleaned silently.
 * - `remoteName` / `remoteFolder` / `remoteKey`: remote file and folder names reduced to safe
 *   segments: no `..` or `.`, no empty segments, no control characters, `\` read as a separator
 *   (Windows servers), and a leading `/` only when the folder as configured (before
 *   interpolation) starts with one, so a project field cannot make a relative folder absolute.
 *
 * - `remoteHost`: the FTP or SFTP server, allowed by the same outbound policy as any URL we fetch
 *   (public hosts only; http/outbound.ts), else a task failure naming `host`.
 *
 * FTP, SFTP, S3 and Dropbox uploads all call these.
 *
 * ```ts
 * protocolValue('folder', '/orders/a\r\nDELE x'); // throws TaskFailure('folder: …')
 * remoteName('../../var/www/index.html');          // 'index.html'
 * remoteFolder('/orders/../{{x}}', '/orders/../a/./b'); // '/orders/a/b'
 * ```
 */
import { OutboundError, checkOutboundUrl, type OutboundEnv } from '../../../http/outbound';
import { TaskFailure } from './errors';

const LINE_BREAKING = /[\r\n\0]/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** Throws a TaskFailure naming `parameter` when `value` holds CR, LF or NUL; returns the value. */
export function protocolValue<T>(parameter: string, value: T): T {
  if (typeof value === 'string' && LINE_BREAKING.test(value)) {
    throw new TaskFailure(`${parameter}: contains a line break or NUL (CR, LF and NUL are not allowed in values sent to the server)`);
  }
  return value;
}

/** `protocolValue` for each named parameter of `params` that is a string. */
export function protocolValues<P extends object>(params: P, names: ReadonlyArray<keyof P & string>): void {
  for (const n of names) protocolValue(n, params[n]);
}

/**
 * The server a socket upload connects to: `host` trimmed, once the outbound policy allows it at
 * `port` (checked as the https URL of that host and port). Refused as a task failure naming `host`.
 */
export function remoteHost(host: string, port: number, env: OutboundEnv): string {
  const trimmed = host.trim();
  try {
    checkOutboundUrl(`https://${trimmed.includes(':') ? `[${trimmed}]` : trimmed}:${port}/`, env);
  } catch (e) {
    throw new TaskFailure(`host: ${e instanceof OutboundError ? e.message : 'not a valid host'}`);
  }
  return trimmed;
}

/** Safe segments of a path: no control characters, `.`/`..`/empty segments dropped. */
export function safeSegments(path: string): string[] {
  return path
    .replace(CONTROL, '')
    .split(/[/\\]+/)
    .map((s) => s.trim())
    .filter((s) => s !== '' && s !== '.' && s !== '..');
}

/**
 * A remote file name: the last safe segment of `name` (an asset renamed `../../x.psd` is stored
 * as `x.psd`). Throws a TaskFailure naming `parameter` when nothing usable is left.
 */
export function remoteName(name: string, parameter = 'file name'): string {
  const last = safeSegments(name).pop();
  if (!last) throw new TaskFailure(`${parameter}: "${name.replace(CONTROL, '')}" is not a usable file name`);
  return last;
}

/**
 * A remote folder from its interpolated value; absolute (`/a/b`) only when the configured value
 * (as written, before interpolation) starts with `/`. '' (relative) or '/' for no folder.
 */
export function remoteFolder(value: string, configured: unknown = value): string {
  const segments = safeSegments(value);
  const absolute = typeof configured === 'string' && configured.trimStart().startsWith('/');
  return (absolute ? '/' : '') + segments.join('/');
}

/** An object key (S3): safe segments, never a leading `/`; a trailing `/` (a prefix) is kept. */
export function remoteKey(value: string): string {
  const segments = safeSegments(value);
  return segments.length && /[/\\]\s*$/.test(value) ? `${segments.join('/')}/` : segments.join('/');
}

/** Joins a folder (from `remoteFolder`) and a name (from `remoteName`). */
export function joinRemote(folder: string, name: string): string {
  return folder === '' ? name : `${folder.replace(/\/+$/, '')}/${name}`;
}

/** A parameter as written in the pipeline (before interpolation), matched ignoring ASCII case. */
export function configured(parameters: Record<string, unknown>, name: string): unknown {
  const lower = name.toLowerCase();
  return Object.entries(parameters).find(([k]) => k.toLowerCase() === lower)?.[1];
}
