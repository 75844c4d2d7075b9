/** The barcode encoder lives in the engine (src/engine/barcode.ts), shared with Dynamic Image. */
export { BARCODE_FORMATS, ERROR_CORRECTION, QUIET, TWO_D, encodeBarcode, type BarcodeFormat, type Symbol } from '../barcode';
