/**
 * What a job is, as the component it belongs to declares it (its `<component>.jobs.ts`): its name,
 * the queue it goes on, the data it carries (ids, never secret values), what it returns and what it
 * reports while it runs (`never`: nothing). The job machinery is generic over these; the composition's
 * catalogue lists every queue and the jobs on it.
 */
export interface JobKind {
  name: string;
  queue: string;
  data: unknown;
  result: unknown;
  progress: unknown;
}

/** A job as added: its name and data, one variant per kind so `switch (job.name)` narrows `data`. */
export type JobOf<J extends JobKind> = J extends JobKind ? { name: J['name']; data: J['data'] } : never;

/** The kind named N among the kinds J. */
export type KindNamed<J extends JobKind, N extends J['name']> = Extract<J, { name: N }>;
