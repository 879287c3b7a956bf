/** A limit on calls at once to one LLM model that every worker process shares (kept in a store they all reach). */
export interface ProviderSlots {
  /** Runs `task` once a slot of `model` (its id) is free, and frees it after. */
  run<T>(model: string, task: () => Promise<T>): Promise<T>;
}
