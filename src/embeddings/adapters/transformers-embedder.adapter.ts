import path from 'node:path';
import { env, LogLevel, pipeline, type FeatureExtractionPipeline } from '@huggingface/transformers';
import { UnavailableError } from '../../kernel/errors.js';
import type { Embedder } from '../embedder.port.js';

export interface TransformersEmbedderOptions {
  /** Hub model id (`Xenova/all-MiniLM-L6-v2`), or the folder name when `modelPath` is set. */
  model: string;
  /** A local folder with config.json, tokenizer files and onnx/model.onnx; no download then. */
  modelPath?: string;
  /** Where downloaded models are cached (under DATA_DIR). */
  cacheDir: string;
  batchSize?: number;
}

/**
 * transformers.js feature extraction (mean pooling, normalised). The pipeline is created on the
 * first load() and shared by every later call of this instance.
 */
export class TransformersEmbedder implements Embedder {
  readonly model: string;
  private loading?: Promise<{ extractor: FeatureExtractionPipeline; dimension: number }>;

  constructor(private readonly options: TransformersEmbedderOptions) {
    this.model = options.modelPath ? path.basename(path.resolve(options.modelPath)) : options.model;
  }

  load(): Promise<{ dimension: number }> {
    this.loading ??= this.create();
    return this.loading.then(({ dimension }) => ({ dimension }));
  }

  private async create(): Promise<{ extractor: FeatureExtractionPipeline; dimension: number }> {
    env.logLevel = LogLevel.ERROR;
    env.cacheDir = this.options.cacheDir;
    let id = this.options.model;
    if (this.options.modelPath) {
      const folder = path.resolve(this.options.modelPath);
      env.allowRemoteModels = false;
      env.allowLocalModels = true;
      env.localModelPath = `${path.dirname(folder)}${path.sep}`;
      id = path.basename(folder);
    }
    try {
      const extractor = await pipeline<'feature-extraction'>('feature-extraction', id, { dtype: 'fp32' });
      const probe = await extractor(['probe'], { pooling: 'mean', normalize: true });
      return { extractor, dimension: probe.dims.at(-1) ?? 0 };
    } catch (error) {
      throw new UnavailableError(
        `embedding model ${this.model} cannot be loaded: ${error instanceof Error ? error.message : String(error)}`,
        {
          remedy:
            'Check EMBEDDING_MODEL, or point EMBEDDING_MODEL_PATH at a local copy of the model (offline), or set EMBEDDING_MODEL=none for lexical search.',
        },
      );
    }
  }

  async embed(texts: string[]): Promise<number[][]> {
    this.loading ??= this.create();
    const { extractor } = await this.loading;
    const batchSize = this.options.batchSize ?? 32;
    const vectors: number[][] = [];
    for (let start = 0; start < texts.length; start += batchSize) {
      const output = await extractor(texts.slice(start, start + batchSize), { pooling: 'mean', normalize: true });
      vectors.push(...(output.tolist() as number[][]));
    }
    return vectors;
  }
}
