import { CHAT_QUEUE, chatPeriodicJobs, type ChatJob } from '../chat/chat.jobs.js';
import { HEALTH_QUEUE, healthPeriodicJobs, type HealthJob } from '../health/health.jobs.js';
import type { BullQueue } from '../kernel/bullmq/bullmq-queue.adapter.js';
import { openDefinedQueue, type OpenQueueOptions } from '../kernel/bullmq/job-queue.adapter.js';
import type { Config } from './config.js';
import type { PeriodicJob } from '../kernel/jobs/periodic-job.js';
import type { QueueDefinition } from '../kernel/jobs/queue-definition.js';
import { INDEX_QUEUE, type KnowledgeJob } from '../knowledge/knowledge.jobs.js';

/**
 * The job catalogue: every queue of the service and the jobs on it, as the components declare them
 * (`chat/chat.jobs.ts`, `health/health.jobs.ts`, `knowledge/knowledge.jobs.ts`: names, data,
 * results, ids, retries and retention, periodic jobs). One worker (and one processor) per queue.
 */

/** Every queue, by name. */
export const QueueName = { Chat: CHAT_QUEUE.name, Health: HEALTH_QUEUE.name, Index: INDEX_QUEUE.name } as const;
export type QueueName = (typeof QueueName)[keyof typeof QueueName];

/** Every queue, in catalogue order. */
export const QUEUE_NAMES: readonly QueueName[] = Object.values(QueueName);

/** Every job of the service. */
export type Job = ChatJob | HealthJob | KnowledgeJob;

/** The jobs of queue Q. */
export type JobsOf<Q extends QueueName> = Extract<Job, { queue: Q }>;

const QUEUES: { [Q in QueueName]: QueueDefinition<JobsOf<Q>> } = {
  [QueueName.Chat]: CHAT_QUEUE,
  [QueueName.Health]: HEALTH_QUEUE,
  [QueueName.Index]: INDEX_QUEUE,
};

/** The producer side of queue Q, typed by its jobs. */
export type CatalogueQueue<Q extends QueueName> = BullQueue<JobsOf<Q>>;

/** Opens queue Q with its jobs' retry and retention policies. */
export function openQueue<Q extends QueueName>(queueName: Q, options: OpenQueueOptions): CatalogueQueue<Q> {
  return openDefinedQueue<JobsOf<Q>>(QUEUES[queueName], options);
}

/** Each queue's periodic jobs, as its component declares them from its settings. */
export function periodicJobs(config: Pick<Config, 'chat' | 'health'>): { [Q in QueueName]: Array<PeriodicJob<JobsOf<Q>>> } {
  return { [QueueName.Chat]: chatPeriodicJobs(config.chat), [QueueName.Health]: healthPeriodicJobs(config.health), [QueueName.Index]: [] };
}
