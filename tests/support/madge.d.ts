// The part of madge's API the import-graph test uses (the package ships no types).
declare module 'madge' {
  type Graph = { circular(): string[][]; obj(): Record<string, string[]> };
  export default function madge(paths: string[], config: { fileExtensions: string[]; tsConfig: string }): Promise<Graph>;
}
