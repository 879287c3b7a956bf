import type { TextSink } from './provider.port.js';

/**
 * The text sink of one provider call across its attempts: each attempt gets a writer, and an
 * attempt after one that wrote text first tells the sink to start over, so a retried call never
 * duplicates what the reader has seen.
 */
export class StreamedText {
  private written = false;

  constructor(private readonly sink: TextSink) {}

  /** The writer of the next attempt. */
  attempt(): (delta: string) => void {
    if (this.written) {
      this.written = false;
      this.sink.restart();
    }
    return (delta) => {
      if (!delta) return;
      this.written = true;
      this.sink.text(delta);
    };
  }
}
