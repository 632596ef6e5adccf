// `import text from './file.js?raw'`: a file's text, read at bundle time (rollup.raw-text.js).
declare module '*?raw' {
  const text: string;
  export default text;
}
