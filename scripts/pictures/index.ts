// What scripts/pictures.mjs takes from here, bundled by it into .tmp/pictures/index.js.
export { CMARK_GFM_ARGS, commentPage } from './comment-page.js';
export { fingerprint, manifestEntry, MANIFEST_PATH, type Manifest } from './fingerprint.js';
export { makeInputs, mermaidVersion, type PictureInputs } from './inputs.js';
export { picturePath, SHOTS, type Shot, type ShotAction } from './shots.js';
