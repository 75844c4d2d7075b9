// SSH pieces without a server: wire encodings (RFC 4251 §5), fingerprints as ssh-keygen prints
// them, and a peer that is not an SSH server (RFC 4253 §4.2) refused with a reason.
import { describe, expect, it } from 'vitest';
import { openSftp } from '../../../src/lib/ssh';
import { sameFingerprint } from '../../../src/lib/ssh/hostkey';
import { Reader, Writer, mpintBody } from '../../../src/lib/ssh/wire';

const hex = (b: Uint8Array) => [...b].map((x) => x.toString(16).padStart(2, '0')).join('');

/** A fake peer: sends `lines` then closes; what the client writes is drained. */
function peer(text: string) {
  return {
    readable: new Blob([text]).stream() as ReadableStream<Uint8Array>,
    writable: new WritableStream<Uint8Array>(),
  };
}

describe('RFC 4251 §5 encodings', () => {
  it('mpint: the examples of §5 (0, 0x9a378f9b2e332a7, 0x80, -none-)', () => {
    expect(hex(new Writer().mpint(new Uint8Array([0])).bytes())).toBe('00000000');
    expect(hex(new Writer().mpint(new Uint8Array([0x09, 0xa3, 0x78, 0xf9, 0xb2, 0xe3, 0x32, 0xa7])).bytes())).toBe('0000000809a378f9b2e332a7');
    expect(hex(new Writer().mpint(new Uint8Array([0x80])).bytes())).toBe('000000020080');
    expect(hex(mpintBody(new Uint8Array([0, 0, 0x7f])))).toBe('7f');
  });

  it('string, uint32, uint64, name-list round trip; reading past the end is a protocol error', () => {
    const b = new Writer().string('ssh-userauth').uint32(0xdeadbeef).uint64(2 ** 40).nameList(['a', 'b']).bool(true).bytes();
    const r = new Reader(b);
    expect([r.text(), r.uint32(), r.uint64(), r.nameList(), r.bool()]).toEqual(['ssh-userauth', 0xdeadbeef, 2 ** 40, ['a', 'b'], true]);
    expect(() => r.byte()).toThrow(expect.objectContaining({ code: 'protocol' }));
  });
});

describe('fingerprints', () => {
  it('compare with or without the SHA256: prefix and padding', () => {
    const f = 'SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU';
    expect(sameFingerprint(f, f)).toBe(true);
    expect(sameFingerprint('47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=', f)).toBe(true);
    expect(sameFingerprint('SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFV', f)).toBe(false);
  });
});

describe('a peer that is not an SSH-2 server', () => {
  const options = { username: 'u', password: 'p', verifyHostKey: () => {} };

  it('an SSH-1 server is refused naming its version', async () => {
    await expect(openSftp(peer('SSH-1.5-OpenSSH_2.0\r\n'), options)).rejects.toMatchObject({ code: 'protocol', message: expect.stringMatching(/another SSH version \(SSH-1\.5/) });
  });

  it('an HTTP server that closes is a connection error (retried)', async () => {
    await expect(openSftp(peer('HTTP/1.1 400 Bad Request\r\n\r\n'), options)).rejects.toMatchObject({ code: 'connection' });
  });

  it('a server that stops after its version line is a connection error', async () => {
    await expect(openSftp(peer('SSH-2.0-Test\r\n'), options)).rejects.toMatchObject({ code: 'connection' });
  });

  it('a packet length past 256 KiB is refused', async () => {
    const bad = new Uint8Array([0x7f, 0xff, 0xff, 0xff, 4, 0, 0, 0, 0, 0, 0, 0]);
    const text = new TextEncoder().encode('SSH-2.0-Test\r\n');
    const stream = new Blob([text, bad]).stream() as ReadableStream<Uint8Array>;
    await expect(openSftp({ readable: stream, writable: new WritableStream() }, options)).rejects.toMatchObject({ code: 'protocol', message: 'the server sent a malformed packet' });
  });
});
