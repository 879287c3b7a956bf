/** Writes `rows` as columns, each as wide as its longest cell, two spaces apart; the first row heads them. */
export function writeTable(out: NodeJS.WritableStream, rows: string[][]): void {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows)
    out.write(
      `${row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd()}\n`,
    );
}
