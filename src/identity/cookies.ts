import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Cookies are Secure everywhere except plain-http development on a loopback host. */
const secure = (c: Context): boolean => {
  const url = new URL(c.req.url);
  return url.protocol === 'https:' || !LOCAL_HOSTS.has(url.hostname);
};

/** HttpOnly, SameSite=Lax, path /, Secure outside localhost. */
export function setIdentityCookie(c: Context, name: string, value: string, maxAge: number): void {
  setCookie(c, name, value, { httpOnly: true, secure: secure(c), sameSite: 'Lax', path: '/', maxAge });
}

export function clearIdentityCookie(c: Context, name: string): void {
  deleteCookie(c, name, { httpOnly: true, secure: secure(c), sameSite: 'Lax', path: '/' });
}

export const readCookie = (c: Context, name: string): string | undefined => getCookie(c, name) || undefined;
