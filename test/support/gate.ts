/** A promise a test settles by hand: whoever awaits `opened` goes on once `open()` is called. */
export function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}
