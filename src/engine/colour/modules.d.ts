// `*.icc` imports are Data modules (wrangler.toml [[rules]]): the file's bytes.
declare module '*.icc' {
  const bytes: ArrayBuffer;
  export default bytes;
}

// lcms-wasm ships no types; the subset src/engine/colour/lcms.ts uses.
declare module 'lcms-wasm' {
  export interface LcmsModule {
    HEAPU8: Uint8Array;
    _malloc(size: number): number;
    _free(ptr: number): void;
    _cmsOpenProfileFromMem(ptr: number, size: number): number;
    _cmsCloseProfile(profile: number): number;
    _cmsCreateTransform(input: number, inputFormat: number, output: number, outputFormat: number, intent: number, flags: number): number;
    _cmsDeleteTransform(transform: number): void;
    _cmsDoTransform(transform: number, input: number, output: number, size: number): void;
    _cmsCreateLab4Profile(whitePoint: number): number;
    _cmsGetColorSpace(profile: number): number;
    cmsCreate_sRGBProfile(): number;
    cmsGetColorSpaceASCII(profile: number): string | null;
    cmsGetProfileInfoASCII(profile: number, info: number, language: string, country: string): string;
  }
  export function instantiate(options?: Record<string, unknown>): Promise<LcmsModule>;
}
