/**
 * Packet protection after NEWKEYS (RFC 4253 §6): the binary packet
 * `uint32 packet_length, byte padding_length, payload, padding[, mac]`, sealed by
 * - aes128-gcm@openssh.com / aes256-gcm@openssh.com (RFC 5647 as OpenSSH's PROTOCOL §1.6 amends
 *   it): packet_length in clear as additional data, a 12-byte nonce whose last 8 bytes count
 *   packets, a 16-byte tag;
 * - aes128-ctr / aes256-ctr (RFC 4344) with hmac-sha2-256 (RFC 6668): the whole packet encrypted,
 *   the MAC over `uint32 sequence_number || plaintext packet` (encrypt-and-MAC).
 * The first two algorithms are preferred: one AEAD pass per packet.
 */
import { SshError } from './errors';

export const CIPHERS = ['aes128-gcm@openssh.com', 'aes256-gcm@openssh.com', 'aes128-ctr', 'aes256-ctr'] as const;
export const MACS = ['hmac-sha2-256'] as const;

export interface CipherSpec {
  keyLength: number;
  ivLength: number;
  aead: boolean;
}

export function cipherSpec(name: string): CipherSpec {
  const keyLength = name.startsWith('aes256') ? 32 : 16;
  return name.endsWith('-gcm@openssh.com') ? { keyLength, ivLength: 12, aead: true } : { keyLength, ivLength: 16, aead: false };
}

/** Both directions implement this; `none` before the first NEWKEYS. */
export interface PacketCipher {
  /** Block size the padded packet must be a multiple of (AEAD: without packet_length). */
  readonly block: number;
  readonly aead: boolean;
  readonly macLength: number;
  /** Encrypts a full plaintext packet (with length), returns the bytes to send. */
  seal(seq: number, packet: Uint8Array): Promise<Uint8Array>;
  /** Decrypts the first `block` bytes (or the 4 length bytes for AEAD), to learn the length. */
  openHead(head: Uint8Array): Promise<Uint8Array>;
  /** Decrypts and authenticates the rest; returns the plaintext packet body after the length. */
  openRest(seq: number, head: Uint8Array, plainHead: Uint8Array, rest: Uint8Array, mac: Uint8Array): Promise<Uint8Array>;
}

export const NONE: PacketCipher = {
  block: 8,
  aead: false,
  macLength: 0,
  seal: async (_seq, packet) => packet,
  openHead: async (head) => head,
  openRest: async (_seq, _head, plainHead, rest) => {
    const out = new Uint8Array(plainHead.length - 4 + rest.length);
    out.set(plainHead.subarray(4));
    out.set(rest, plainHead.length - 4);
    return out;
  },
};

const seqBytes = (seq: number) => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, seq >>> 0);
  return b;
};

class Gcm implements PacketCipher {
  readonly block = 16;
  readonly aead = true;
  readonly macLength = 16;
  private readonly nonce: Uint8Array;

  private constructor(
    private readonly key: CryptoKey,
    iv: Uint8Array,
  ) {
    this.nonce = iv.slice(0, 12);
  }

  static async create(key: Uint8Array, iv: Uint8Array, usage: 'encrypt' | 'decrypt'): Promise<Gcm> {
    return new Gcm(await crypto.subtle.importKey('raw', key, 'AES-GCM', false, [usage]), iv);
  }

  /** The invocation counter: the nonce's last 8 bytes, +1 per packet (RFC 5647 §7.1). */
  private next(): Uint8Array {
    const iv = this.nonce.slice();
    const view = new DataView(this.nonce.buffer);
    view.setBigUint64(4, view.getBigUint64(4) + 1n);
    return iv;
  }

  async seal(_seq: number, packet: Uint8Array): Promise<Uint8Array> {
    const head = packet.subarray(0, 4);
    const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv: this.next(), additionalData: head, tagLength: 128 }, this.key, packet.subarray(4)));
    const out = new Uint8Array(4 + sealed.length);
    out.set(head);
    out.set(sealed, 4);
    return out;
  }

  async openHead(head: Uint8Array): Promise<Uint8Array> {
    return head;
  }

  async openRest(_seq: number, head: Uint8Array, _plain: Uint8Array, rest: Uint8Array, mac: Uint8Array): Promise<Uint8Array> {
    const sealed = new Uint8Array(rest.length + mac.length);
    sealed.set(rest);
    sealed.set(mac, rest.length);
    try {
      return new Uint8Array(await crypto.subtle.decrypt({ name: 'AES-GCM', iv: this.next(), additionalData: head, tagLength: 128 }, this.key, sealed));
    } catch {
      throw new SshError('protocol', 'a packet failed authentication (AES-GCM)');
    }
  }
}

class CtrHmac implements PacketCipher {
  readonly block = 16;
  readonly aead = false;
  readonly macLength = 32;
  private counter: bigint;

  private constructor(
    private readonly key: CryptoKey,
    private readonly mac: CryptoKey,
    iv: Uint8Array,
    private readonly encrypt: boolean,
  ) {
    this.counter = [...iv].reduce((v, b) => (v << 8n) | BigInt(b), 0n);
  }

  static async create(key: Uint8Array, iv: Uint8Array, macKey: Uint8Array, usage: 'encrypt' | 'decrypt'): Promise<CtrHmac> {
    const k = await crypto.subtle.importKey('raw', key, 'AES-CTR', false, [usage]);
    const m = await crypto.subtle.importKey('raw', macKey, { name: 'HMAC', hash: 'SHA-256' }, false, [usage === 'encrypt' ? 'sign' : 'verify']);
    return new CtrHmac(k, m, iv, usage === 'encrypt');
  }

  /** AES-CTR over whole blocks from the running 128-bit counter (RFC 4344 §4). */
  private async ctr(data: Uint8Array): Promise<Uint8Array> {
    const counter = new Uint8Array(16);
    let c = this.counter;
    for (let i = 15; i >= 0; i--) {
      counter[i] = Number(c & 0xffn);
      c >>= 8n;
    }
    this.counter = (this.counter + BigInt(data.length / 16)) & ((1n << 128n) - 1n);
    const params = { name: 'AES-CTR', counter, length: 128 };
    return new Uint8Array(await (this.encrypt ? crypto.subtle.encrypt(params, this.key, data) : crypto.subtle.decrypt(params, this.key, data)));
  }

  async seal(seq: number, packet: Uint8Array): Promise<Uint8Array> {
    const macInput = new Uint8Array(4 + packet.length);
    macInput.set(seqBytes(seq));
    macInput.set(packet, 4);
    const [enc, mac] = await Promise.all([this.ctr(packet), crypto.subtle.sign('HMAC', this.mac, macInput)]);
    const out = new Uint8Array(enc.length + 32);
    out.set(enc);
    out.set(new Uint8Array(mac), enc.length);
    return out;
  }

  openHead(head: Uint8Array): Promise<Uint8Array> {
    return this.ctr(head);
  }

  async openRest(seq: number, _head: Uint8Array, plainHead: Uint8Array, rest: Uint8Array, mac: Uint8Array): Promise<Uint8Array> {
    const plainRest = rest.length ? await this.ctr(rest) : rest;
    const packet = new Uint8Array(4 + plainHead.length + plainRest.length);
    packet.set(seqBytes(seq));
    packet.set(plainHead, 4);
    packet.set(plainRest, 4 + plainHead.length);
    if (!(await crypto.subtle.verify('HMAC', this.mac, mac, packet))) throw new SshError('protocol', 'a packet failed authentication (hmac-sha2-256)');
    return packet.subarray(8);
  }
}

export function createCipher(name: string, key: Uint8Array, iv: Uint8Array, macKey: Uint8Array, usage: 'encrypt' | 'decrypt'): Promise<PacketCipher> {
  return cipherSpec(name).aead ? Gcm.create(key, iv, usage) : CtrHmac.create(key, iv, macKey, usage);
}
