import { z } from 'zod';
import { settings, type SectionsOf } from '../kernel/config/settings.js';

/** Sessions with MCP servers, and users' OAuth sign-ins to them. */
export const MCP_CLIENT_SETTINGS = settings({
  env: {
    MCP_CONNECTION_TTL_S: z.coerce.number().int().min(1).default(300),
    MCP_CONNECT_TIMEOUT_S: z.coerce.number().int().min(1).max(600).default(10),
    MCP_OAUTH_STATE_TTL_S: z.coerce.number().int().min(30).max(3_600).default(600),
    MCP_OAUTH_CLIENT_METADATA_URL: z
      .string()
      .url()
      .refine((value) => /^https:\/\/[^/]+\/./.test(value), 'an https URL with a path (where the client metadata document is published)')
      .optional(),
  },
  read: (e) => ({
    mcp: {
      connectionTtlMs: e.MCP_CONNECTION_TTL_S * 1_000,
      connectTimeoutMs: e.MCP_CONNECT_TIMEOUT_S * 1_000,
      /** How long a user's sign-in to an OAuth MCP server may take. */
      oauthStateTtlMs: e.MCP_OAUTH_STATE_TTL_S * 1_000,
      /** Where the OAuth client's metadata document is published, when not on PUBLIC_URL. */
      ...(e.MCP_OAUTH_CLIENT_METADATA_URL ? { oauthClientMetadataUrl: e.MCP_OAUTH_CLIENT_METADATA_URL } : {}),
    },
  }),
});

export type McpClientSettings = SectionsOf<typeof MCP_CLIENT_SETTINGS>;
