/**
 * Uploads of a task's input files (outbound effects: at least once, each upload overwrites the
 * same name, so a redone unit leaves one file).
 *
 * - upload-to-s3: any S3-compatible `endpoint` (default AWS), path-style `<endpoint>/<bucket>/<key>`,
 *   SigV4 by aws4fetch; files over 64 MB go as a multipart upload in 16 MB parts read from R2 by
 *   range (never the whole file in memory). `key` names the object for one file; with several
 *   files (or a `key` ending in `/`) it is a prefix before each file name.
 * - upload-to-dropbox: `accessToken`, or `refreshToken` + `appKey` + `appSecret` (exchanged for
 *   an access token first); `/2/files/upload` with mode overwrite; files over 128 MB through an
 *   upload session in 64 MB chunks.
 * Every request goes through the outbound module (public hosts only, timeouts). Values that
 * reach a header are checked for CR/LF/NUL and keys and paths are reduced to safe segments
 * (remote-paths.ts), as for FTP.
 */
import { AwsClient } from 'aws4fetch';
import type { Env } from '../../../env';
import { OutboundError, outboundFetch } from '../../../http/outbound';
import { TaskFailure, TransientFailure } from './errors';
import { joinRemote, protocolValues, remoteFolder, remoteKey, remoteName } from './remote-paths';
import type { ArtifactRecord, TaskModule, UnitContext } from './types';

const S3_MULTIPART_OVER = 64 * 1024 * 1024;
const S3_PART = 16 * 1024 * 1024;
const DROPBOX_SESSION_OVER = 128 * 1024 * 1024;
const DROPBOX_CHUNK = 64 * 1024 * 1024;

function files(ctx: UnitContext): ArtifactRecord[] {
  const all = ctx.task.inputs.flatMap((r) => ctx.inputs(r.name));
  if (!all.length) throw new TaskFailure('there is nothing to upload');
  return all;
}

async function sizeOf(ctx: UnitContext, a: ArtifactRecord): Promise<number> {
  const head = await ctx.env.FILES.head(a.key);
  if (!head) throw new TaskFailure(`the artifact ${a.fileName} has no content`);
  return head.size;
}

async function range(ctx: UnitContext, a: ArtifactRecord, offset: number, length: number): Promise<Uint8Array> {
  const obj = await ctx.env.FILES.get(a.key, { range: { offset, length } });
  if (!obj) throw new TaskFailure(`the artifact ${a.fileName} has no content`);
  return new Uint8Array(await obj.arrayBuffer());
}

/** One outbound request; a refusal fails the task, a remote failure is retried (maxAutoRetryCount). */
async function send(ctx: UnitContext, url: string, init: { method: string; headers: Headers; body?: Uint8Array | string | null }, what: string) {
  const { env, signal } = ctx;
  try {
    return await outboundFetch(url, { env, ...ctx.outbound, method: init.method, headers: init.headers, body: init.body ?? null, signal, timeoutMs: 300_000, maxBytes: 1024 * 1024 });
  } catch (e) {
    if (e instanceof OutboundError) {
      const status = e.upstreamStatus;
      if (e.refused || (status && status >= 400 && status < 500 && status !== 408 && status !== 429)) {
        throw new TaskFailure(`${what}: ${e.message}${status ? ` (HTTP ${status})` : ''}`);
      }
      throw new TransientFailure(`${what}: ${e.message}${status ? ` (HTTP ${status})` : ''}`);
    }
    throw e;
  }
}

const encodeKey = (key: string) => key.split('/').map(encodeURIComponent).join('/');

export const uploadToS3: TaskModule<'upload-to-s3'> = {
  async run(ctx, p) {
    protocolValues(p, ['region', 'bucket', 'key', 'accessKeyId', 'secretAccessKey']);
    const aws = new AwsClient({ accessKeyId: p.accessKeyId, secretAccessKey: p.secretAccessKey, region: p.region, service: 's3', retries: 0 });
    const endpoint = (p.endpoint ?? `https://s3.${p.region}.amazonaws.com`).replace(/\/+$/, '');
    const list = files(ctx);
    const given = remoteKey(p.key ?? '');
    for (const a of list) {
      const key = list.length === 1 && given && !given.endsWith('/') ? given : joinRemote(given, remoteName(a.fileName, `the name of ${a.name}`));
      const url = `${endpoint}/${encodeURIComponent(p.bucket)}/${encodeKey(key)}`;
      const signed = async (target: string, method: string, body?: Uint8Array | string) => {
        const req = await aws.sign(target, { method, body: body ?? null, headers: body instanceof Uint8Array ? { 'content-type': 'application/octet-stream' } : {} });
        return send(ctx, req.url, { method, headers: req.headers, body }, `upload of ${a.fileName} to S3`);
      };
      const size = await sizeOf(ctx, a);
      if (size <= S3_MULTIPART_OVER) {
        await signed(url, 'PUT', await ctx.read(a));
        continue;
      }
      const created = new TextDecoder().decode((await signed(`${url}?uploads`, 'POST')).bytes);
      const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(created)?.[1];
      if (!uploadId) throw new TransientFailure('S3 did not start the multipart upload');
      const parts: string[] = [];
      for (let offset = 0, n = 1; offset < size; offset += S3_PART, n++) {
        const res = await signed(`${url}?partNumber=${n}&uploadId=${encodeURIComponent(uploadId)}`, 'PUT', await range(ctx, a, offset, Math.min(S3_PART, size - offset)));
        parts.push(`<Part><PartNumber>${n}</PartNumber><ETag>${res.headers.get('etag') ?? ''}</ETag></Part>`);
      }
      await signed(`${url}?uploadId=${encodeURIComponent(uploadId)}`, 'POST', `<CompleteMultipartUpload>${parts.join('')}</CompleteMultipartUpload>`);
    }
  },
};

const dropboxApi = (env: Env) => (env.DROPBOX_API_URL ?? 'https://api.dropboxapi.com').replace(/\/+$/, '');
const dropboxContent = (env: Env) => (env.DROPBOX_CONTENT_URL ?? 'https://content.dropboxapi.com').replace(/\/+$/, '');

/** Dropbox-API-Arg is JSON with non-ASCII escaped (HTTP headers are ASCII). */
const apiArg = (v: unknown) => JSON.stringify(v).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

export const uploadToDropbox: TaskModule<'upload-to-dropbox'> = {
  async run(ctx, p) {
    protocolValues(p, ['accessToken', 'refreshToken', 'appKey', 'appSecret', 'path']);
    let token = p.accessToken;
    if (!token) {
      const body = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: p.refreshToken!, client_id: p.appKey!, client_secret: p.appSecret! }).toString();
      const res = await send(ctx, `${dropboxApi(ctx.env)}/oauth2/token`, { method: 'POST', headers: new Headers({ 'content-type': 'application/x-www-form-urlencoded' }), body }, 'Dropbox token refresh');
      token = (JSON.parse(new TextDecoder().decode(res.bytes)) as { access_token?: string }).access_token;
      if (!token) throw new TaskFailure('Dropbox did not return an access token');
    }
    // Dropbox paths are always absolute (from the app's root).
    const folder = remoteFolder(p.path, '/').replace(/^\/$/, '');
    for (const a of files(ctx)) {
      const path = `${folder}/${remoteName(a.fileName, `the name of ${a.name}`)}`;
      const headers = (arg: unknown) => new Headers({ authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream', 'Dropbox-API-Arg': apiArg(arg) });
      const commit = { path, mode: 'overwrite', autorename: false, mute: true };
      const size = await sizeOf(ctx, a);
      const what = `upload of ${a.fileName} to Dropbox`;
      if (size <= DROPBOX_SESSION_OVER) {
        await send(ctx, `${dropboxContent(ctx.env)}/2/files/upload`, { method: 'POST', headers: headers(commit), body: await ctx.read(a) }, what);
        continue;
      }
      const start = await send(ctx, `${dropboxContent(ctx.env)}/2/files/upload_session/start`, { method: 'POST', headers: headers({ close: false }), body: await range(ctx, a, 0, DROPBOX_CHUNK) }, what);
      const session = (JSON.parse(new TextDecoder().decode(start.bytes)) as { session_id: string }).session_id;
      let offset = DROPBOX_CHUNK;
      for (; offset + DROPBOX_CHUNK < size; offset += DROPBOX_CHUNK) {
        await send(ctx, `${dropboxContent(ctx.env)}/2/files/upload_session/append_v2`, { method: 'POST', headers: headers({ cursor: { session_id: session, offset }, close: false }), body: await range(ctx, a, offset, DROPBOX_CHUNK) }, what);
      }
      await send(ctx, `${dropboxContent(ctx.env)}/2/files/upload_session/finish`, { method: 'POST', headers: headers({ cursor: { session_id: session, offset }, commit }), body: await range(ctx, a, offset, size - offset) }, what);
    }
  },
};
