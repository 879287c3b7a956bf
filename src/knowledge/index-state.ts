/**
 * The last or current run of one repository, as the status commands show it. A run is under way
 * while its state says `indexing` and its repository's lock is held: the state of a run whose
 * process died stays `indexing`, but its lock expires.
 */
export interface IndexState {
  state: 'indexing' | 'indexed' | 'failed';
  files_done: number;
  files_total: number;
  started_at: string;
  updated_at: string;
  finished_at?: string;
  error?: string;
  /** From the last finished run: what the index holds. */
  store?: string;
  commit?: string;
  indexed_at?: string;
  documents?: number;
  /** The version of the chunks the run left in a store that machines copy (the lexical store with Redis): searches catch up to it. */
  version?: string;
}
