export interface Column<T> {
  readonly header: string;
  readonly value: (row: T) => unknown;
}

const cell = (value: unknown): string => {
  if (value === null || value === undefined) return '-';
  if (Array.isArray(value)) return value.length === 0 ? '-' : value.join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
};

/** A plain text table: a header line, then one aligned line a row. */
export const formatTable = <T>(rows: readonly T[], columns: readonly Column<T>[]): string => {
  const cells = rows.map((row) => columns.map((column) => cell(column.value(row))));
  const widths = columns.map((column, index) =>
    Math.max(column.header.length, ...cells.map((line) => line[index]!.length)),
  );
  const line = (values: readonly string[]) =>
    values
      .map((value, index) => value.padEnd(widths[index]!))
      .join('  ')
      .trimEnd();
  return [line(columns.map((column) => column.header)), ...cells.map(line)].join('\n');
};

/** One record as `field: value` lines. */
export const formatRecord = (record: Record<string, unknown>): string => {
  const width = Math.max(...Object.keys(record).map((key) => key.length));
  return Object.entries(record)
    .map(([key, value]) => `${key.padEnd(width)}  ${cell(value)}`)
    .join('\n');
};
