const ACTIONS = ['view', 'add', 'change', 'delete'] as const;

/** Every permission a token can carry. `superuser` implies all of them. */
export const PERMISSIONS = [
  // `as const` keeps each name a literal type, so `Permission` is their union rather than `string`.
  ...ACTIONS.flatMap((action) => [`ai_ops.${action}_llmmodel`, `ai_ops.${action}_mcpserver`] as const),
  ...ACTIONS.map((action) => `extras.${action}_secret` as const),
  'extras.view_status',
  'ai_ops.chat',
  'ai_ops.view_kb',
  'ai_ops.change_kb',
  // Calling the HTTP tool server, whose tools act with PLATFORM_TOKEN's rights.
  'ai_ops.use_toolserver',
  // Reading the audit log of the agent's tool calls (every user's).
  'ai_ops.view_auditlog',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}

/** Who is calling, as far as authorization cares. */
export interface Principal {
  userId: string;
  username: string;
  tokenId: string;
  superuser: boolean;
  permissions: ReadonlySet<Permission>;
  writeEnabled: boolean;
}

export function hasPermission(principal: Pick<Principal, 'superuser' | 'permissions'>, permission: Permission): boolean {
  return principal.superuser || principal.permissions.has(permission);
}

/** What an operation may require: a permission, or a superuser's token (managing tokens: any lesser right could mint a superuser). */
export type Requirement = Permission | 'superuser';

export function isRequirement(value: string): value is Requirement {
  return value === 'superuser' || isPermission(value);
}

export function meetsRequirement(principal: Principal, requirement: Requirement): boolean {
  return requirement === 'superuser' ? principal.superuser : hasPermission(principal, requirement);
}

/** Who writes a record, as far as the superuser-only rules care. */
export type Actor = Pick<Principal, 'superuser'>;

/** Writes made by the operator's own tooling (start-up seeding, tests arranging state): every right. */
export const OPERATOR: Actor = { superuser: true };
