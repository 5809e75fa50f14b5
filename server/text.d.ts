// Text files imported by the bundles (esbuild's text loader, see esbuild.mjs).
declare module '*.txt' {
  const content: string;
  export default content;
}
