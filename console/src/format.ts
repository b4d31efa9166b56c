/** How the console writes numbers, money and times (no DOM here: the browser tests use it too). */
export const formatCost = (usd: number): string => `$${usd < 1 ? usd.toFixed(4) : usd.toFixed(2)}`;
export const formatNumber = (value: number): string => value.toLocaleString('en-US');
export const formatTime = (iso: string | null): string => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '—');
