/**
 * Types of the parts of gifenc (a pure-JS GIF encoder without types of its own) the viewer uses. Its CommonJS build
 * shows Node's ESM loader only a default export, so it is imported whole.
 */
declare module "gifenc" {
  type Palette = number[][];
  const gifenc: {
    quantize(
      rgba: Uint8Array | Uint8ClampedArray,
      maxColors: number,
      options?: { format?: "rgb565" | "rgb444" | "rgba4444" },
    ): Palette;
    applyPalette(rgba: Uint8Array | Uint8ClampedArray, palette: Palette, format?: string): Uint8Array;
    GIFEncoder(options?: { auto?: boolean }): {
      writeFrame(
        index: Uint8Array,
        width: number,
        height: number,
        options?: { palette?: Palette; delay?: number; repeat?: number; transparent?: boolean },
      ): void;
      finish(): void;
      bytes(): Uint8Array;
    };
  };
  export default gifenc;
}
