/** A limit on calls at once to one provider kind that every worker process shares (kept in a store they all reach). */
export interface ProviderSlots {
  /** Runs `task` once a slot of `kind` is free, and frees it after. */
  run<T>(kind: string, task: () => Promise<T>): Promise<T>;
}
