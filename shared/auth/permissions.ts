/** Every permission a token can carry. `superuser` implies all of them. */
export const PERMISSIONS = [
  ...['view', 'add', 'change', 'delete'].flatMap((action) => [`ai_ops.${action}_llmmodel`, `ai_ops.${action}_mcpserver`]),
  ...['view', 'add', 'change', 'delete'].map((action) => `extras.${action}_secret`),
  'extras.view_status',
  'ai_ops.chat',
  'ai_ops.view_kb',
  'ai_ops.change_kb',
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

export function hasPermission(principal: Principal, permission: Permission): boolean {
  return principal.superuser || principal.permissions.has(permission);
}
