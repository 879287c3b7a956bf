import { z } from 'zod';
import { ConflictError, NotFoundError, ValidationError } from '../kernel/errors.js';
import { USER_REPOSITORIES, type DocumentCollection, type UserRepositories } from './knowledge-state.port.js';
import type { KnowledgeLocks } from './locks.port.js';
import { OFFICIAL_REPOSITORIES, RepositorySchema, repositoryName, type ListedRepository, type Repository } from './repository.js';

/** Zod issues as `{field: [messages]}`, the shape every edge shows for invalid input. */
function fieldErrors(error: z.ZodError): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  for (const issue of error.issues) (fields[issue.path.join('.') || 'non_field_errors'] ??= []).push(issue.message);
  return fields;
}

const UserFileSchema = z.object({ repositories: z.array(RepositorySchema).default([]) });
/** Longer than a lock's expiry, so a lock left by a killed writer is taken over rather than failed on. */
const LOCK_WAIT_MS = 45_000;
const LOCK_NAME = 'repositories';

/** An entry to add, its source checked already (see admitRepository). */
export interface NewRepository {
  name: string;
  description?: string;
  branch?: string;
  priority?: number;
  file_patterns?: string[];
  url?: string;
  secret?: string;
  trusted?: boolean;
}

/**
 * The repositories of the knowledge base: the official list (in the code; none when the operator
 * leaves it out, see officialRepositories) and the user list
 * (one document of the knowledge state), one entry per name, sorted by priority then name.
 * Add and remove hold a lock and replace the user list whole, so concurrent writers (the API,
 * tool servers, the CLI, on any machine) never lose each other's changes.
 */
export class RepositoryList {
  constructor(
    private readonly documents: DocumentCollection<UserRepositories>,
    private readonly locks: KnowledgeLocks,
    private readonly official: readonly Repository[] = OFFICIAL_REPOSITORIES,
  ) {}

  private async readUser(): Promise<Repository[]> {
    return UserFileSchema.parse((await this.documents.get(USER_REPOSITORIES)) ?? {}).repositories;
  }

  async list(): Promise<ListedRepository[]> {
    const officialNames = new Set(this.official.map((repo) => repo.name.toLowerCase()));
    const user = (await this.readUser()).filter((repo) => !officialNames.has(repo.name.toLowerCase()));
    return [
      ...this.official.map((repo) => ({ ...repo, source: 'official' as const })),
      ...user.map((repo) => ({ ...repo, source: 'user' as const })),
    ].sort((a, b) => a.priority - b.priority || a.name.localeCompare(b.name));
  }

  async get(name: string): Promise<ListedRepository> {
    const wanted = repositoryName(name).toLowerCase();
    const found = (await this.list()).find((repo) => repo.name.toLowerCase() === wanted);
    if (!found) throw new NotFoundError(`repository ${name} is not in the knowledge base`);
    return found;
  }

  async add(input: NewRepository): Promise<ListedRepository> {
    const name = repositoryName(input.name);
    const parsed = RepositorySchema.safeParse({
      name,
      description: input.description || `User-added repository: ${input.url ?? name}`,
      priority: input.priority,
      branch: input.branch,
      file_patterns: input.file_patterns,
      url: input.url,
      secret: input.secret,
      trusted: input.trusted,
    });
    // A bad field (a branch like `--upload-pack=...`) is the caller's mistake: a 400 naming it.
    if (!parsed.success) throw new ValidationError(fieldErrors(parsed.error));
    const repo = parsed.data;
    await this.update(async (user) => {
      if ((await this.list()).some((existing) => existing.name.toLowerCase() === name.toLowerCase())) {
        throw new ConflictError(
          `repository ${name} is already in the knowledge base${input.url ? ': give this one another name (owner/name)' : ''}`,
        );
      }
      return [...user, repo];
    });
    return { ...repo, source: 'user' };
  }

  /** Removes a user repository; official ones are part of the code and cannot be removed. */
  async remove(name: string): Promise<Repository> {
    const wanted = repositoryName(name).toLowerCase();
    if (this.official.some((repo) => repo.name.toLowerCase() === wanted)) {
      throw new ConflictError(`repository ${name} is on the official list and cannot be removed`);
    }
    let removed: Repository | undefined;
    await this.update(async (user) => {
      removed = user.find((repo) => repo.name.toLowerCase() === wanted);
      if (!removed) throw new NotFoundError(`repository ${name} is not in the knowledge base`);
      return user.filter((repo) => repo !== removed);
    });
    return removed!;
  }

  private async update(change: (user: Repository[]) => Promise<Repository[]>): Promise<void> {
    const release = await this.locks.acquire(LOCK_NAME, { waitMs: LOCK_WAIT_MS });
    try {
      const next = await change(await this.readUser());
      await this.documents.put(USER_REPOSITORIES, { repositories: next });
    } finally {
      await release();
    }
  }
}
