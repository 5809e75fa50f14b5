// The .proto texts imported by server/plugin/proto/load.ts (esbuild's text loader for '.proto', see esbuild.mjs).
declare module '*.proto' {
  const content: string;
  export default content;
}
