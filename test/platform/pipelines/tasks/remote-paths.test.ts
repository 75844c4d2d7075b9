// The protocol-value and remote-path rules every upload (FTP, SFTP, S3, Dropbox) applies after
// interpolation (docs/security.md).
import { describe, expect, it } from 'vitest';
import { TaskFailure } from '../../../../src/platform/pipelines/tasks/errors';
import { joinRemote, protocolValue, remoteFolder, remoteHost, remoteKey, remoteName } from '../../../../src/platform/pipelines/tasks/remote-paths';

describe('protocolValue', () => {
  it('refuses CR, LF and NUL as a task failure naming the parameter', () => {
    for (const bad of ['a\r\nDELE x', 'a\nb', 'a\rb', 'a\0b']) {
      expect(() => protocolValue('folder', bad)).toThrow(TaskFailure);
      expect(() => protocolValue('folder', bad)).toThrow(/^folder: contains a line break or NUL/);
    }
    expect(protocolValue('userName', 'bench')).toBe('bench');
    expect(protocolValue('port', 21)).toBe(21);
  });
});

describe('remote names', () => {
  it('a file name is its last safe segment, without control characters', () => {
    expect(remoteName('../../../../var/www/html/index.html.psd')).toBe('index.html.psd');
    expect(remoteName('..\\..\\boot.ini')).toBe('boot.ini');
    expect(remoteName('card\u0007 .pdf')).toBe('card .pdf');
    expect(() => remoteName('../..', 'fileName')).toThrow(/^fileName: /);
  });

  it('a folder keeps a leading / only when the configured folder has one', () => {
    expect(remoteFolder('/orders/../../etc/./x', '/orders/{{a}}')).toBe('/orders/etc/x');
    expect(remoteFolder('/etc/passwd', '{{project.fields.folder}}')).toBe('etc/passwd');
    expect(remoteFolder('/', '/')).toBe('/');
    expect(remoteFolder('', '')).toBe('');
    expect(joinRemote('/a', 'b.pdf')).toBe('/a/b.pdf');
    expect(joinRemote('/', 'b.pdf')).toBe('/b.pdf');
    expect(joinRemote('', 'b.pdf')).toBe('b.pdf');
  });

  it('an S3 key has no leading /, no .. and keeps a trailing / as a prefix', () => {
    expect(remoteKey('/../../orders/1042.csv')).toBe('orders/1042.csv');
    expect(remoteKey('orders/')).toBe('orders/');
    expect(remoteKey('')).toBe('');
  });
});

describe('remoteHost', () => {
  it('is the trimmed host where the outbound policy allows it, else a task failure naming host', () => {
    expect(remoteHost(' ftp.example.com ', 21, {})).toBe('ftp.example.com');
    expect(remoteHost('127.0.0.1', 2222, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' })).toBe('127.0.0.1');
    expect(() => remoteHost('10.0.0.5', 21, {})).toThrow(TaskFailure);
    expect(() => remoteHost('10.0.0.5', 21, {})).toThrow(/^host: the host is internal/);
    expect(() => remoteHost('::1', 22, {})).toThrow(/^host: the host is internal/);
    expect(() => remoteHost('bad host', 21, {})).toThrow(/^host: not a valid absolute URL/);
  });
});
