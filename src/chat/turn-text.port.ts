/**
 * A piece of a running turn's text. `step` is the model call it belongs to (1, 2, ...: steps with
 * tool calls write text too). `reset`: the piece replaces that step's text so far (the first piece
 * of every step has it, so a retried call or job starts the step over); otherwise it is appended.
 */
export interface TurnTextPiece {
  step: number;
  reset: boolean;
  text: string;
}

/**
 * Port: the text of running turns, as workers write it and as readers follow it. A reader gets
 * everything written so far, then each new piece as it comes, in order, each once, whenever it
 * starts following.
 */
export interface TurnTextFeed {
  append(jobId: string, piece: TurnTextPiece): Promise<void>;
  /** Calls `listener` with the pieces written so far, then with new ones; resolves once the first are delivered, to the stop. */
  follow(jobId: string, listener: (piece: TurnTextPiece) => void): Promise<() => void>;
}
