/**
 * The admin key a first start created, framed so that it stands out from the lines around it. It is
 * printed once and never again: the store keeps only its hash.
 */
export const adminKeyBox = (key: string): string => {
  const lines = [
    'Admin key (shown once, keep it):',
    '',
    `  ${key}`,
    '',
    'Sign in to the console with it, or set GATEWAY_ADMIN_KEY to choose your own.',
  ];
  const width = Math.max(...lines.map((line) => line.length));
  const rule = `+${'-'.repeat(width + 2)}+`;
  return `${[rule, ...lines.map((line) => `| ${line.padEnd(width)} |`), rule].join('\n')}\n`;
};
