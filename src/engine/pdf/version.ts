/** Bumped when the PDF output changes for equal inputs (part of every PDF fingerprint and strip-cache key). */
export const PDF_WRITER_VERSION = 4;
