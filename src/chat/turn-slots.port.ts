/** Port: a cap on one user's chat turns running at once, counted across every worker process. */
export interface TurnSlots {
  /** Takes one of `userId`'s slots, held until released; null when every one is taken. A slot whose worker was killed frees itself. */
  take(userId: string): Promise<{ release(): Promise<void> } | null>;
}
