/** Ends a benchmark child process whose work failed, so the parent sees it exit rather than wait for a reply. */
export function failChild(error: unknown): never {
  console.error(error);
  process.exit(1);
}
