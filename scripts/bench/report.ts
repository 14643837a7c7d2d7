/** Helpers shared by the benchmarks: percentiles and a plain aligned table. */

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export function printTable(title: string, rows: readonly (readonly string[])[]): void {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  console.log(`\n${title}`);
  console.log('-'.repeat(title.length));
  for (const row of rows) console.log(row.map((cell, column) => cell.padEnd(widths[column]!)).join('   '));
  console.log('');
}
