import { stackSettings } from '../stack-settings.js';

/** The markers around the generated `-c` table in docs/configuration.md. */
export const settingsBlockStart = '<!-- stack-settings:start -->';
export const settingsBlockEnd = '<!-- stack-settings:end -->';

const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll('<', '&lt;').replaceAll('\n', ' ');

/** The `-c` settings table, from the one table the stack reads its context through. */
export const stackSettingsTable = (): string =>
  [
    '| setting | default | meaning |',
    '|---|---|---|',
    ...Object.entries(stackSettings).map(
      ([name, setting]) => `| \`${name}\` | ${cell(setting.defaultText)} | ${cell(setting.description)} |`,
    ),
  ].join('\n');

/** docs/configuration.md with its `-c` table made anew. */
export const withSettingsTable = (document: string): string => {
  const start = document.indexOf(settingsBlockStart);
  const end = document.indexOf(settingsBlockEnd);
  if (start < 0 || end < start) throw new Error('docs/configuration.md has lost its stack-settings markers');
  return `${document.slice(0, start + settingsBlockStart.length)}\n${stackSettingsTable()}\n${document.slice(end)}`;
};
