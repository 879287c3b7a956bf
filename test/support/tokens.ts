import type { NewToken, TokenService } from '../../src/records/auth/token.service.js';

/**
 * A token of a user of this service who may use the tool server (`ai_ops.use_toolserver`), writes
 * allowed and no expiry unless `overrides` say otherwise: the caller most tool-server tests need.
 */
export function toolServerUser(tokens: Pick<TokenService, 'create'>, username = 'engineer', overrides: Partial<NewToken> = {}) {
  return tokens.create({
    username,
    superuser: false,
    permissions: ['ai_ops.use_toolserver'],
    writeEnabled: true,
    expires: null,
    ...overrides,
  });
}
