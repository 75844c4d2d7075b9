/**
 * One error type for the SSH client, with a stable code (jose style), so callers decide what is
 * worth a retry: `connection` (dropped, timed out) is; the others are configuration or server
 * refusals that a retry does not change.
 */
export type SshErrorCode =
  | 'connection' // the TCP connection closed or failed
  | 'protocol' // the server sent something malformed or unexpected
  | 'algorithms' // no algorithm in common
  | 'host-key' // the host key's signature is wrong, or its fingerprint is not the pinned one
  | 'auth' // every authentication method was refused
  | 'key' // the private key cannot be read (format, passphrase)
  | 'sftp' // an SFTP request failed (status other than OK)
  | 'disconnect'; // the server sent SSH_MSG_DISCONNECT

export class SshError extends Error {
  constructor(
    readonly code: SshErrorCode,
    message: string,
    /** SFTP status code (draft-ietf-secsh-filexfer-02 §7) for code `sftp`. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'SshError';
  }
}
