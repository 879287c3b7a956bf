import type { KnowledgeConfig } from './knowledge.settings.js';
import type { QueueConsumer } from '../kernel/jobs/queue-consumer.js';
import { indexProcessor } from './index.processor.js';
import type { KnowledgeIndexer } from './knowledge-indexer.js';
import type { KnowledgeJob } from './knowledge.jobs.js';

/** The `index` queue's consumer: clone, chunk and index repositories into the knowledge base shared in Redis. */
export function indexQueue(deps: {
  config: { knowledge: KnowledgeConfig };
  /** The knowledge base's indexer, built by the role as every process builds it. */
  indexer: KnowledgeIndexer;
  /** Closes what the indexer holds. */
  close: () => Promise<void>;
}): QueueConsumer<KnowledgeJob> {
  return { processor: indexProcessor({ indexer: deps.indexer }), concurrency: deps.config.knowledge.indexConcurrency, close: deps.close };
}
