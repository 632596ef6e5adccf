// Types of emoji-pixels.mjs, for the tests that import it.
export declare const EMOJI_FONT: Readonly<{ family: string; debianPackage: string }>;
export declare function emojiFontProblem(env?: NodeJS.ProcessEnv): string | undefined;
export interface DecodedPng {
  width: number;
  height: number;
  /** RGBA, row by row. */
  pixels: Buffer;
}
export declare function decodePng(bytes: Buffer): DecodedPng;
export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}
export declare function greenSquares(image: DecodedPng, minSide?: number): Box[];
