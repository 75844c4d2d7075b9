// Checks, before `npm test`, that the system programs the tests drive are installed: Chromium for
// the browser tests, qpdf and poppler-utils for the PDF prepress checks, libjpeg-turbo's djpeg as
// the reference JPEG decoder, HarfBuzz's hb-shape as the reference shaper. Without this, a
// missing package shows up as dozens of failing tests with no clear reason; here it is one line
// naming the packages and the command that installs them. Debian/Ubuntu package names (the
// README's apt-get line).
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/** Debian package → the programs the tests run from it (a path, or a name looked up on PATH). */
const PACKAGES = {
  // test/browser/chromium.ts launches this path.
  chromium: [process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'],
  qpdf: ['qpdf'],
  'poppler-utils': ['pdfinfo', 'pdftoppm', 'pdffonts', 'pdftotext'],
  'libjpeg-turbo-progs': ['djpeg'],
  // Ghostscript reads our CMYK PDFs back as a RIP would (tiff32nc, tiffsep separations).
  ghostscript: ['gs'],
  // LittleCMS's own command-line transform: the reference values for our colour conversions.
  'liblcms2-utils': ['transicc'],
  // Real delivery servers for upload-to-ftp (SFTP, FTPS), started on loopback by the test setup.
  'openssh-server': ['/usr/sbin/sshd'],
  vsftpd: ['/usr/sbin/vsftpd'],
  // Barcode readers: the design atoms' barcodes are decoded back by real scanners' code.
  'zbar-tools': ['zbarimg'],
  'dmtx-utils': ['dmtxread'],
  // HarfBuzz's own tools: hb-shape remakes the shaping fixtures, hb-subset the bundled fallback
  // fonts (scripts/fonts/), the reference our shaper is held to (issue 21).
  'libharfbuzz-bin': ['hb-shape', 'hb-subset'],
};

const executable = (file) => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** True when `cmd` (an absolute path, or a name on PATH) can be executed. */
function found(cmd) {
  if (cmd.includes('/')) return executable(cmd);
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  return dirs.some((dir) => executable(path.join(dir, cmd)));
}

const missing = Object.entries(PACKAGES)
  .filter(([, cmds]) => !cmds.every(found))
  .map(([pkg]) => pkg);

if (missing.length > 0) {
  console.error(
    `Tests need system packages that are missing: ${missing.join(', ')}. Install them with: sudo apt-get install -y ${missing.join(' ')}`,
  );
  process.exit(1);
}
