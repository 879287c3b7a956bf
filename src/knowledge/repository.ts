import { z } from 'zod';
import { ValidationError } from '../kernel/errors.js';

/** `owner/name`: GitHub's characters, no `.`/`..` segment, no leading `-` (never read as a git option). */
const NAME = /^(?!-)[A-Za-z0-9_.-]{1,100}\/(?!-)[A-Za-z0-9_.-]{1,100}$/;
/** A branch name git accepts that cannot be mistaken for an option or leave refs/. */
const BRANCH = /^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*@\{)[A-Za-z0-9._/-]{1,200}(?<![./])$/;
/** `.py` (a suffix) or a simple glob on the file name (`*.md`, `Dockerfile`). */
const PATTERN = /^[A-Za-z0-9_.*?-]{1,64}$/;

/** What a user repository indexes when it names none: documentation, configuration, and the code the chunkers split by definition (Python, JavaScript, TypeScript). */
export const DEFAULT_FILE_PATTERNS = ['.py', '.js', '.ts', '.md', '.rst', '.yaml', '.yml', '.json', '.txt'];

export function isRepositoryName(value: string): boolean {
  return NAME.test(value) && !value.split('/').some((part) => part === '.' || part === '..' || part.endsWith('.git'));
}

/** Validates `owner/name`; the error names the field for the API and the tools. */
export function repositoryName(value: string, field = 'repo'): string {
  const trimmed = value.trim().replace(/\/+$/, '');
  if (!isRepositoryName(trimmed))
    throw ValidationError.field(field, `'${value}' is not a repository name of the form owner/name (letters, digits, '.', '-', '_').`);
  return trimmed;
}

export const RepositorySchema = z.object({
  name: z.string().refine(isRepositoryName, 'owner/name'),
  description: z.string().max(500).default(''),
  priority: z.number().int().min(1).max(100).default(5),
  enabled: z.boolean().default(true),
  branch: z.string().regex(BRANCH, 'a branch name').default('main'),
  file_patterns: z.array(z.string().regex(PATTERN, 'a suffix such as .py or a file-name glob')).min(1).default(DEFAULT_FILE_PATTERNS),
  /** Where it is cloned from (a Git URL, or the file:// URL of a local folder); absent: `<GIT_BASE_URL>/<name>.git`. */
  url: z.string().max(2_000).optional(),
  /** The secret holding its credential: a token over https, an SSH private key over ssh. */
  secret: z.string().min(1).max(100).optional(),
  /** A superuser added it, vouching for its address (which may then be internal). Never shown. */
  trusted: z.boolean().optional(),
});

/** One knowledge-base repository: where it comes from, which branch and which files. */
export type Repository = z.infer<typeof RepositorySchema>;

export type RepositorySource = 'official' | 'user';

export interface ListedRepository extends Repository {
  source: RepositorySource;
}

/** A repository as the API, the tools and the CLI show it: what decides its checks stays inside. */
export type RepositoryView = Omit<ListedRepository, 'trusted'>;

export function repositoryView({ trusted: _trusted, ...view }: ListedRepository): RepositoryView {
  return view;
}

/**
 * The official list: version controlled, shipped with the service. Lower priority numbers are
 * searched and indexed first.
 */
export const OFFICIAL_REPOSITORIES: readonly Repository[] = [
  {
    name: 'nautobot/nautobot',
    description: 'Nautobot: the network source of truth (models, REST API, jobs, documentation)',
    priority: 1,
    enabled: true,
    branch: 'develop',
    file_patterns: ['.py', '.md', '.rst', '.yaml', '.yml', '.txt'],
  },
  {
    name: 'nautobot/pynautobot',
    description: 'pynautobot: the Python SDK for the Nautobot REST API',
    priority: 2,
    enabled: true,
    branch: 'develop',
    file_patterns: ['.py', '.md', '.rst', '.txt'],
  },
  {
    name: 'nautobot/nornir-nautobot',
    description: 'Nornir inventory and tasks backed by Nautobot',
    priority: 3,
    enabled: true,
    branch: 'develop',
    file_patterns: ['.py', '.md', '.rst', '.yaml', '.yml', '.txt'],
  },
];

/** The official list, or none where the operator leaves it out (KB_OFFICIAL_REPOS=false: a Git server that does not mirror it). */
export function officialRepositories(included: boolean): readonly Repository[] {
  return included ? OFFICIAL_REPOSITORIES : [];
}

/** A file-system and id-safe form of a name: `owner~name` (`~` never occurs in a name). */
export function repositorySlug(name: string): string {
  return name.replace('/', '~');
}

/** The name a slug was made from. */
export function repositoryFromSlug(slug: string): string {
  return slug.replace('~', '/');
}
