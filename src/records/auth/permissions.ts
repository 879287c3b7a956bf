import { ENUMS, type Schemas } from '../../api/openapi-types.js';
/** Every permission a token can carry, as the OpenAPI document lists them (Permission). `superuser` implies all of them. */
export const PERMISSIONS = ENUMS.Permission;

export type Permission = Schemas['Permission'];

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
  /** A key delegated for a piece of work (a chat turn's): refused on the service's control plane (api/control-plane.ts). */
  delegated?: true;
  /** The one resource the token is for (an OAuth access token's, RFC 8707); the API refuses it. */
  audience?: string;
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
