import { describe, expect, it } from 'vitest';
import { fileName, folderName, splitExtension, titleOf, uploadedBaseName } from '../../src/engine/names';
import { ApiError } from '../../src/errors';
import { toApiError } from '../../src/dynamic-image/errors';

const status = (f: () => unknown) => {
  try {
    f();
    return 200;
  } catch (e) {
    return (toApiError(e) as ApiError).status;
  }
};

describe('file names (rendering contract: relative, /-separated, case-sensitive)', () => {
  it('accepts relative names with folders and keeps their case', () => {
    expect(fileName('Cards/Front.PSD')).toBe('Cards/Front.PSD');
    expect(fileName('a b/ü.png')).toBe('a b/ü.png');
  });

  it.each(['../x.psd', 'a/../x.psd', '/x.psd', 'a\\x.psd', 'a//x.psd', './x', '', 'a\u0000b'])('refuses %j with 400', (name) => {
    expect(status(() => fileName(name))).toBe(400);
  });

  it('treats an empty folder as the root and tolerates a trailing slash', () => {
    expect(folderName(undefined)).toBe('');
    expect(folderName('')).toBe('');
    expect(folderName('cards/')).toBe('cards');
    expect(status(() => folderName('../up'))).toBe(400);
    expect(status(() => folderName('/abs'))).toBe(400);
  });

  it('keeps only the last segment of an uploaded file name', () => {
    expect(uploadedBaseName('C:\\Users\\me\\x.psd')).toBe('x.psd');
    expect(uploadedBaseName('dir/x.psd')).toBe('x.psd');
    expect(status(() => uploadedBaseName('..'))).toBe(400);
  });

  it('splits extensions and titles', () => {
    expect(splitExtension('cards/x.psd')).toEqual(['cards/x', '.psd']);
    expect(splitExtension('cards.v2/x')).toEqual(['cards.v2/x', '']);
    expect(splitExtension('.hidden')).toEqual(['.hidden', '']);
    expect(titleOf('photos/summer.jpg')).toBe('summer');
  });
});
