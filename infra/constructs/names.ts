/** `chat` → `Chat`, `stream-test` → `StreamTest`: construct ids from table and group names. */
export const pascalCase = (name: string): string =>
  name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
