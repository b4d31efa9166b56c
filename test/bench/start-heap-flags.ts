import { readFileSync } from 'node:fs';

/** The V8 heap and collector flags `npm start` runs the local runtime with, read from its script in package.json. */
export const startHeapFlags = (): string[] => {
  const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    scripts: { start: string };
  };
  return (
    packageJson.scripts.start.match(
      /--(?:(?:max|min)-[a-z-]+-size|heap-growing-percent)=\d+|--no-parallel-scavenge\b/g,
    ) ?? []
  );
};
